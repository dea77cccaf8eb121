/**
 * The texts InterCode's loops wrote in place of an observation (profile row
 * `python.try-again-feedback`). Pure functions: the engine and the replay check use them.
 */

/** InterCode's Try Again runs on Python each used one of three wordings for a turn whose tests failed. */
export const PYTHON_FEEDBACK_WORDINGS = ["did-not-pass", "failed-count", "failed-test"] as const;
export type PythonFeedbackWording = (typeof PYTHON_FEEDBACK_WORDINGS)[number];

/** The observation a turn whose tests did not all pass was given (`failed`: the failing tests, in order). */
export function pythonTestFeedback(wording: PythonFeedbackWording, failed: readonly string[], total: number): string {
  switch (wording) {
    case "did-not-pass":
      return "Test case did not pass. Please try again.";
    case "failed-count":
      return `Failed ${failed.length}/${total} Test Cases. Please try again.`;
    case "failed-test":
      return `Failed Test Case: ${failed[0] ?? ""}\nPlease try again.`;
  }
}

/**
 * The observation InterCode's Python Try Again loop stored for a scored turn, or null when it kept
 * the environment's: a turn whose tests ran and did not all pass gets `wording`. `breakdown` is the
 * score's (its tests in the order of the task's distinct tests, possibly with their text hidden);
 * `tests` the task's tests.
 */
export function rewrittenPythonObservation(
  wording: PythonFeedbackWording,
  score: { reward: number; breakdown: { kind: string; error?: string; tests?: { test: string; agree: boolean }[] } },
  tests: readonly string[],
): string | null {
  const b = score.breakdown;
  if (score.reward >= 1 || b.kind !== "python" || b.error !== undefined || !b.tests) return null;
  const distinct = [...new Set(tests)];
  const failed = b.tests.flatMap((t, k) => (t.agree ? [] : [distinct[k] ?? t.test]));
  return pythonTestFeedback(wording, failed, b.tests.length);
}

/** The wording the engine uses for new episodes under profile intercode. */
export const DEFAULT_PYTHON_FEEDBACK: PythonFeedbackWording = "did-not-pass";

/** Which wording a logged episode's observations show (null when none of its turns failed a test). */
export function detectPythonFeedback(observations: readonly string[]): PythonFeedbackWording | null {
  for (const o of observations) {
    if (o.startsWith("Test case did not pass.")) return "did-not-pass";
    if (/^Failed \d+\/\d+ Test Cases\./.test(o)) return "failed-count";
    if (o.startsWith("Failed Test Case: ")) return "failed-test";
  }
  return null;
}
