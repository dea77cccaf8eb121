import { describe, expect, it } from "vitest";
import type { Task } from "@/lib/datasets/types";
import type { Environment, StepResult } from "@/lib/env/types";
import { goldCheckTask } from "./gold-check";

// Gold played through a session over a fake CTF environment: no sandbox. gold-check.int.test.ts
// plays real tasks.

const ctf = { env: "ctf", dataset: "demo-ctf", id: "c1", index: 0, query: "q", gold: "flag{x}", tags: [] } as Task;

/** A CTF environment whose `cat flag` prints `flag{x}` and fails any other command; it records its calls. */
function fakeCtf(log: string[]): Environment & { closed: number } {
  return {
    env: "ctf",
    task: null,
    closed: 0,
    async reset() {
      log.push("reset");
      return { observation: "q" };
    },
    async step(action): Promise<StepResult> {
      log.push(`step ${action}`);
      return action === "cat flag" ? { observation: "flag{x}\n", ok: true, done: false } : { observation: "no such file", ok: false, done: false };
    },
    async submit(arg) {
      log.push(`submit ${arg}`);
      const reward = arg === "flag{x}" ? 1 : 0;
      return { reward, breakdown: { kind: "ctf", submitted: arg ?? "", match: reward === 1 }, goldObservation: "flag{x}", agentObservation: arg ?? "" };
    },
    async evaluate() {
      throw new Error("gold-check never evaluates");
    },
    async close() {
      this.closed++;
    },
  };
}

describe("goldCheckTask", () => {
  it("plays the environment's gold: a CTF flag at once, or its solution's output; the sandbox stays the caller's", async () => {
    const log: string[] = [];
    const env = fakeCtf(log);
    expect(await goldCheckTask(env, ctf)).toEqual({ taskId: "c1", reward: 1 });
    expect(await goldCheckTask(env, { ...ctf, solution: "cat flag" } as Task)).toEqual({ taskId: "c1", reward: 1 });
    expect(await goldCheckTask(env, { ...ctf, solution: "cat nothing" } as Task)).toEqual({
      taskId: "c1",
      reward: 0,
      reason: "the solution command failed: no such file",
    });
    expect(log).toEqual(["reset", "submit flag{x}", "reset", "step cat flag", "submit flag{x}", "reset", "step cat nothing"]);
    expect(env.closed).toBe(0);
  });
});
