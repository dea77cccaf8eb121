import { describe, expect, it } from "vitest";
import { pythonReward } from "./python";

describe("pythonReward", () => {
  it("is the share of tests whose outcome matches gold's", () => {
    const r = pythonReward({
      functionName: "add",
      tests: [
        { test: "assert add(1, 2) == 3", gold: "pass", agent: "pass" },
        { test: "assert add(0, 0) == 0", gold: "pass", agent: "fail", detail: "AssertionError" },
        { test: "assert add('a', 1) == 1", gold: "error", agent: "error" },
      ],
    });
    expect(r.raw).toBe(2 / 3);
    expect(r.reward).toBe(0.67);
    expect(r.breakdown.tests.map((t) => t.agree)).toEqual([true, false, true]);
    expect(r.breakdown.tests[1].detail).toBe("AssertionError");
  });

  it("gives 1 when every outcome agrees, even where gold itself fails", () => {
    expect(pythonReward({ functionName: "f", tests: [{ test: "assert f() == 2", gold: "fail", agent: "fail" }] }).reward).toBe(1);
  });

  it("counts a test listed twice once, as InterCode's dict did", () => {
    const r = pythonReward({
      functionName: "f",
      tests: [
        { test: "assert f(1)", gold: "pass", agent: "pass" },
        { test: "assert f(1)", gold: "pass", agent: "pass" },
        { test: "assert f(2)", gold: "pass", agent: "error" },
      ],
    });
    expect(r.raw).toBe(0.5);
    expect(r.breakdown.tests).toHaveLength(2);
  });

  it("scores no tests, or an untestable submission, as 0 with a reason", () => {
    expect(pythonReward({ functionName: "f", tests: [] })).toMatchObject({ reward: 0, breakdown: { error: "the task has no tests" } });
    const r = pythonReward({ functionName: "g", tests: [{ test: "assert f(1)", gold: "pass", agent: "error" }], error: "name 'g' is not defined" });
    expect(r.reward).toBe(0);
    expect(r.breakdown.error).toBe("name 'g' is not defined");
  });

  it("reproduces InterCode's logged values: quarters and thirds unrounded in raw", () => {
    const mk = (agree: number, total: number) =>
      pythonReward({
        functionName: "f",
        tests: Array.from({ length: total }, (_, i) => ({ test: `t${i}`, gold: "pass" as const, agent: i < agree ? ("pass" as const) : ("fail" as const) })),
      });
    expect([mk(1, 3).raw, mk(2, 3).raw, mk(3, 4).raw]).toEqual([0.3333333333333333, 0.6666666666666666, 0.75]);
    expect([mk(1, 3).reward, mk(2, 3).reward, mk(3, 4).reward]).toEqual([0.33, 0.67, 0.75]);
  });
});
