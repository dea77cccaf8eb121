import { pyRound } from "./round";
import type { PythonBreakdown, RewardResult, TestOutcome } from "./types";

/** One test's outcome with the submitted function and with the gold function. */
export interface PythonTestResult {
  /** The test's text (an `assert ...` line); tests with the same text count once. */
  test: string;
  gold: TestOutcome;
  agent: TestOutcome;
  /** What went wrong with the agent's function, shown to the user. */
  detail?: string;
}

export interface PythonRewardInput {
  functionName: string;
  tests: readonly PythonTestResult[];
  /** Set when the submission could not be tested at all (for example, no such function). */
  error?: string;
}

/**
 * InterCode's MBPP reward: the share of the task's tests whose outcome with the submitted function
 * equals their outcome with the gold function (a test gold fails and the agent fails too agrees).
 *
 * InterCode kept results in a dict keyed by the test's text, so a test listed twice counts once
 * (the later result wins); so here. InterCode compared whole printed outcomes; here outcomes are
 * pass / fail / error as the environment classified them. The share is unrounded in `raw`
 * (0.3333333333333333, as InterCode logged it) and rounded to 2 in `reward`. No tests → 0.
 * Never throws.
 */
export function pythonReward(input: PythonRewardInput): RewardResult<PythonBreakdown> {
  const byTest = new Map<string, PythonTestResult>();
  for (const t of Array.isArray(input.tests) ? input.tests : []) byTest.set(String(t.test), t);
  const tests = [...byTest.values()].map((t) => ({
    test: String(t.test),
    gold: t.gold,
    agent: t.agent,
    agree: t.agent === t.gold,
    ...(t.detail !== undefined ? { detail: t.detail } : {}),
  }));
  const agreeing = tests.filter((t) => t.agree).length;
  const raw = tests.length === 0 ? 0 : agreeing / tests.length;
  const error = input.error ?? (tests.length === 0 ? "the task has no tests" : undefined);
  return {
    reward: pyRound(raw, 2),
    raw,
    breakdown: { kind: "python", functionName: String(input.functionName ?? ""), tests, ...(error !== undefined ? { error } : {}) },
  };
}
