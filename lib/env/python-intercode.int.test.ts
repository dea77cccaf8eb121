import { afterAll, describe, expect, it, vi } from "vitest";
import { pythonTaskSchema, type PythonTask } from "@/lib/datasets/types";
import { PythonEnvironment } from "./python";

// A real sandbox (local bwrap) on a shared machine.
vi.setConfig({ testTimeout: 240_000 });
const open: PythonEnvironment[] = [];
afterAll(async () => {
  await Promise.all(open.map((e) => e.close()));
});

/** A task of our own: the gold's first `def name(` is a helper, as in some MBPP golds; one test is listed twice. */
const task: PythonTask = pythonTaskSchema.parse({
  env: "python",
  dataset: "fixture",
  id: "sum-pair",
  index: 0,
  query: "Write add_pair(a, b) returning a + b.",
  gold: "def helper(a, b):\n    return a + b\ndef add_pair(a, b):\n    return helper(a, b)\n",
  tests: ["assert add_pair(1, 2) == 3", "assert add_pair(2, 2) == 4", "assert add_pair(2, 2) == 4", "assert add_pair(0, 5) == 5"],
  setup: "OFFSET = 0",
  functionName: "add_pair",
});

describe("python under profile intercode (local sandbox)", () => {
  it("scores the def'd function bound to the gold's first def name, in the episode's interpreter, then resets it to setup + gold", async () => {
    const e = new PythonEnvironment({ backend: "local", profile: "intercode" });
    open.push(e);
    await e.reset(task);
    // A non-def action runs inside print(...); its observation is str() of the result dict.
    expect((await e.step("6 * 7")).observation).toBe("{'output': '42\\n', 'error': ''}");
    expect((await e.step("import re  def f(s): return 1")).observation).toBe("Error executing action: invalid syntax (<unknown>, line 1)");
    // ...and scores 0 without running a test.
    const untested = await e.evaluate();
    expect(untested.reward).toBe(0);
    expect(untested.breakdown.kind === "python" && untested.breakdown.error).toMatch(/does not define a function/);
    // The agent's function has its own name; InterCode bound it to `helper` (gold's first def), which add_pair calls.
    // Gold is not in the interpreter yet, so add_pair is undefined and every test fails.
    expect((await e.step("def plus(x, y):\n    return x - y + 2 * y")).observation).toBe("{'output': '', 'error': ''}");
    const first = await e.evaluate();
    expect(first.reward).toBe(0);
    // After the score the interpreter holds fresh globals + setup + gold: plus is gone, add_pair and OFFSET are there.
    expect((await e.step("plus")).observation).toBe(`{'error': "Error: name 'plus' is not defined"}`);
    expect((await e.step("(add_pair(2, 3), OFFSET)")).observation).toBe("{'output': '(5, 0)\\n', 'error': ''}");
    // Now a def bound to `helper` is called through gold's add_pair: a wrong helper fails 3 of the 3 distinct tests...
    await e.step("def my_sum(a, b):\n    return a * b");
    const wrong = await e.evaluate();
    expect(wrong.breakdown.kind === "python" && wrong.breakdown.tests.length).toBe(3);
    expect(wrong.reward).toBe(0.33);
    // ...and a def with a syntax error leaves gold's helper in place: the tests pass (InterCode logged 1.0 for such turns).
    const broken = await e.step("def my_sum(a, b):\n    return a +");
    expect(broken.observation).toMatch(/^\{'error': 'Error: invalid syntax \(<string>, line 2\)'\}$/);
    expect((await e.evaluate()).reward).toBe(1);
  });

  it("under profile studio the named function is tested and the interpreter is left alone", async () => {
    const e = new PythonEnvironment({ backend: "local" });
    open.push(e);
    await e.reset(task);
    await e.step("def plus(x, y):\n    return x + y");
    expect((await e.evaluate("plus")).reward).toBe(1);
    expect((await e.step("plus(1, 1)")).observation).toBe("2\n");
  });
});
