import { afterAll, describe, expect, it, vi } from "vitest";
import { getTask } from "@/lib/datasets/registry";
import type { PythonBreakdown } from "@/lib/reward/types";
import { timeoutNote, truncationNote } from "@/lib/sandbox/limits";
import { INTERRUPT_NOTE } from "./shell-episode";
import { PythonEnvironment, RESTART_NOTE } from "./python";
import { backendsUnderTest, sharedTask } from "@/lib/testing/backends";

// Real sandboxes on a shared machine: allow for a loaded host.
vi.setConfig({ testTimeout: 240_000 });
const backends = await backendsUnderTest();
const open: PythonEnvironment[] = [];
function env(options: ConstructorParameters<typeof PythonEnvironment>[0] = {}) {
  const e = new PythonEnvironment(options);
  open.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(open.map((e) => e.close()));
});
const demo = (id: string) => getTask("demo-python", id);

describe.each(backends)("python environment on %s", (backend) => {
  it("keeps one interpreter per episode and prints a bare final expression like a REPL", async () => {
    const e = env({ backend });
    const task = demo("reverse-words");
    expect((await e.reset(task)).observation).toBe(task.query);
    expect(await e.step("x = 40")).toMatchObject({ ok: true, observation: "" });
    expect((await e.step("x + 2")).observation).toBe("42\n");
    expect((await e.step("'a' * 3")).observation).toBe("'aaa'\n");
    expect((await e.step("print('hi'); None")).observation).toBe("hi\n");
    const err = await e.step("1 / 0");
    expect(err.ok).toBe(false);
    expect(err.observation).toContain("ZeroDivisionError: division by zero");
    expect(err.observation).not.toContain("python-driver");
    expect((await e.step("def (")).ok).toBe(false);
    // Reading stdin sees end of input; exit() and a replaced sys.stdout do not break the driver.
    expect((await e.step("input()")).observation).toContain("EOFError");
    expect((await e.step("exit(3)")).ok).toBe(false);
    await e.step("import sys\nsys.stdout = open('/dev/null', 'w')");
    expect((await e.step("print(x)")).observation).toBe("40\n");
  });

  it("stops code at the time limit (and Ctrl+C), keeping the interpreter's state", async () => {
    const e = env({ backend, limits: { timeoutMs: 1500 } });
    await e.reset(demo("count-vowels"));
    await e.step("kept = 'still here'");
    const r = await e.step("while True: pass");
    expect(r).toMatchObject({ ok: false, timedOut: true });
    expect(r.observation).toContain("KeyboardInterrupt");
    expect(r.observation.endsWith(timeoutNote(1500))).toBe(true);
    expect((await e.step("kept")).observation).toBe("'still here'\n");
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const aborted = await e.step("import time\ntime.sleep(30)", { signal: ac.signal });
    expect(aborted.aborted).toBe(true);
    expect(aborted.observation.endsWith(INTERRUPT_NOTE)).toBe(true);
    // Code that swallows the interrupt is killed; the episode goes on in a fresh interpreter.
    const stubborn = await e.step("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass");
    expect(stubborn.timedOut).toBe(true);
    expect(stubborn.observation).toContain(RESTART_NOTE.trim());
    expect((await e.step("1 + 1")).observation).toBe("2\n");
  });

  it("caps output and says so", async () => {
    const e = env({ backend, limits: { outputBytes: 2048 } });
    await e.reset(demo("count-vowels"));
    const r = await e.step("print('z' * 100000)");
    expect(r.truncated).toBe(true);
    expect(r.observation).toBe("z".repeat(2048) + truncationNote(2048));
  });

  it("scores gold 1.0, a wrong function lower, and keeps the tests hidden until submit", async () => {
    const e = env({ backend });
    const task = demo("is-palindrome");
    await e.reset(task);
    await e.step(task.gold as string);
    const good = await e.submit("is_palindrome");
    expect(good.reward).toBe(1);
    expect(good.agentObservation).toContain("def is_palindrome");

    await e.reset(task);
    // Wrong on mixed case and punctuation: the first test fails, the others pass.
    await e.step("def mine(s):\n    return s == s[::-1]");
    const mid = await e.evaluate("mine");
    const b = mid.breakdown as PythonBreakdown;
    expect(b.tests.map((t) => t.test)).toEqual(["test 1", "test 2", "test 3"]);
    expect(b.tests.map((t) => t.agent)).toEqual(["fail", "pass", "pass"]);
    expect(mid.reward).toBe(0.67);
    const s = await e.step("submit mine");
    expect(s.done).toBe(true);
    expect((s.submitted!.breakdown as PythonBreakdown).tests[0]!.test).toBe(task.env === "python" ? task.tests[0] : "");
    // A name that is not defined: every test errors.
    await e.reset(task);
    const none = await e.submit("nothing_here");
    expect(none.reward).toBe(0);
  });

  it("gives MBPP gold 1.0 (setup code included)", async () => {
    const e = env({ backend });
    for (const id of ["11", "12", "17"]) {
      const task = sharedTask("python/mbpp/ic_mbpp.json", "mbpp", id);
      await e.reset(task);
      expect((await e.step(task.gold as string)).ok).toBe(true);
      const r = await e.submit();
      expect(r.reward, JSON.stringify(r.breakdown)).toBe(1);
    }
  });

  it("isolates episodes", async () => {
    const a = env({ backend });
    const b = env({ backend });
    await a.reset(demo("count-vowels"));
    await b.reset(demo("count-vowels"));
    await a.step("secret = 1\nopen('/tmp/a-was-here', 'w').write('x')");
    expect((await b.step("secret")).ok).toBe(false);
    expect((await b.step("import os; os.path.exists('/tmp/a-was-here')")).observation).toBe("False\n");
  });
});
