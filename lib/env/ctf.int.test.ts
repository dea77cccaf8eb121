import { afterAll, describe, expect, it, vi } from "vitest";
import { getTask } from "@/lib/datasets/registry";
import type { CtfBreakdown } from "@/lib/reward/types";
import { CtfEnvironment } from "./ctf";
import { backendsUnderTest, sharedTask } from "@/lib/testing/backends";

// Real sandboxes on a shared machine: allow for a loaded host.
vi.setConfig({ testTimeout: 240_000 });
const backends = await backendsUnderTest();
const open: CtfEnvironment[] = [];
function env(options: ConstructorParameters<typeof CtfEnvironment>[0] = {}) {
  const e = new CtfEnvironment(options);
  open.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(open.map((e) => e.close()));
});

describe.each(backends)("ctf environment on %s", (backend) => {
  it("runs a shell over the task's files; the right flag scores 1 ignoring case, a wrong one 0", async () => {
    const e = env({ backend });
    const task = getTask("demo-ctf", "base64-note");
    if (task.env !== "ctf") throw new Error("not a ctf task");
    expect((await e.reset(task)).observation).toBe(task.query);
    expect((await e.step("pwd; ls")).observation).toBe("/ctf\nnote.txt\n");
    const solved = await e.step(task.solution!);
    expect(solved.observation.trim()).toBe(task.gold);
    const wrong = await e.evaluate("studio{nope}");
    expect(wrong.reward).toBe(0);
    expect(wrong.breakdown as CtfBreakdown).toMatchObject({ kind: "ctf", match: false });
    const s = await e.step(`submit ${task.gold.toUpperCase()}`);
    expect(s.done).toBe(true);
    expect(s.submitted!.reward).toBe(1);
    expect(s.submitted!.goldObservation.trim()).toBe(task.gold);
    await expect(e.step("ls")).rejects.toThrow(/ended/);
  });

  it("keeps state between actions and isolates episodes", async () => {
    const a = env({ backend });
    const b = env({ backend });
    const task = getTask("demo-ctf", "hex-message");
    await a.reset(task);
    await b.reset(task);
    await a.step("cd /tmp && rm -f /ctf/message.hex && X=7");
    expect((await a.step("pwd; echo $X; ls /ctf")).observation).toBe("/tmp\n7\n");
    expect((await b.step("ls /ctf")).observation).toBe("message.hex\n");
  });

  it("runs InterCode tasks without assets (the query still works, the flag scores)", async () => {
    const e = env({ backend });
    const task = sharedTask("ctf/ic_ctf.json", "ctf", "0");
    await e.reset(task);
    expect((await e.step("echo hello")).observation).toBe("hello\n");
    expect((await e.submit(task.gold as string)).reward).toBe(1);
  });
});
