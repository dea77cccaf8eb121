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

/** Which wording a logged episode's observations show (null when none of its turns failed a test). */
export function detectPythonFeedback(observations: readonly string[]): PythonFeedbackWording | null {
  for (const o of observations) {
    if (o.startsWith("Test case did not pass.")) return "did-not-pass";
    if (/^Failed \d+\/\d+ Test Cases\./.test(o)) return "failed-count";
    if (o.startsWith("Failed Test Case: ")) return "failed-test";
  }
  return null;
}
