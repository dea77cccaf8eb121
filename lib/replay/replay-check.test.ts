import { describe, expect, it } from "vitest";
import type { Task } from "@/lib/datasets/types";
import { fakeEnvironment } from "@/lib/testing/fake-environment";
import { checkEpisodeReplay } from "./replay-check";

// The replay as an EpisodeSession over a fake environment, recorded in memory: no sandbox. The
// integration tier (replay-check.int.test.ts, lib/cli/commands/recheck.int.test.ts) replays real logs.

const task = { env: "sql", dataset: "demo-sql", id: "t1", index: 0, query: "q", gold: "SELECT 1", db: "d", tables: {} } as Task;

/** Echoes actions as SQL rows; scores 1 once `win` ran. */
const fakeEnv = (log: string[]) => fakeEnvironment({ log, observe: (action) => `(${action},)`, goldObservation: "(1,)", agentObservation: "(1,)" });

const turns = [
  { index: 0, action: "x", observation: "[(x,)]", reward: 0 },
  { index: 1, action: "win", observation: "(win,)", reward: 1 },
  { index: 2, action: "submit", observation: "(1,)", reward: 1 },
];

describe("checkEpisodeReplay", () => {
  it("replays a recording through a session: the loop's scores, SQL's row list compared unwrapped, the submit scored by submit", async () => {
    const log: string[] = [];
    const env = fakeEnv(log);
    const c = await checkEpisodeReplay({ task, turns, finalReward: 1, env });
    expect(log).toEqual(["reset", "step x", "evaluate", "step win", "evaluate", "step submit", "submit"]);
    expect(c.turns.map((t) => [t.index, t.observationAgrees, t.rewardAgrees, t.replayedReward])).toEqual([
      [0, true, true, 0],
      [1, true, true, 1],
      [2, true, true, 1],
    ]);
    expect([c.finalRewardAgrees, c.replayedFinalReward, c.error]).toEqual([true, 1, undefined]);
    expect(env.closed).toBe(1);
  });

  it("leaves a kept sandbox open for the next episode, and reports a replay that stops", async () => {
    const log: string[] = [];
    const env = fakeEnv(log);
    await checkEpisodeReplay({ task, turns, finalReward: 1, env, keepOpen: true });
    expect(env.closed).toBe(0);
    env.step = async () => {
      throw new Error("sandbox gone");
    };
    const c = await checkEpisodeReplay({ task, turns, finalReward: 1, env, keepOpen: true });
    expect([c.turns.length, c.error, env.closed]).toEqual([0, "sandbox gone", 0]);
  });
});
