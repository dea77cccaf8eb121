/**
 * Scoring in words, for the pages: what a submit scores in each environment, and what each part
 * of a reward breakdown means. The numbers come from the reward functions beside this file; this
 * module only names them (pure, shared by the playground, the agent view and the replay).
 */
import type { EnvName } from "@/lib/datasets/types";

/** One line per environment: what submit scores. */
export const SCORING_RULE: Record<EnvName, string> = {
  bash: "Submit scores the files you changed (against the files gold changes) and the output of your last command.",
  sql: "Submit scores the result set of your last query against gold's (rows and their order); earlier queries do not count.",
  python: "Submit runs hidden tests on your function and counts how many end the way they do for gold's.",
  ctf: "Submit scores the flag: 1 when it matches, 0 when it does not.",
};

/** A part of a breakdown: its name, its value as shown, and what it measures. */
export interface BreakdownPart {
  key: string;
  label: string;
  value: string;
  explain: string;
}

function two(v: unknown): string {
  return typeof v === "number" ? v.toFixed(2) : "n/a";
}

/** The parts of a breakdown in words (python's per-test results are listed apart). */
export function breakdownParts(b: { kind: string } & Record<string, unknown>): BreakdownPart[] {
  switch (b.kind) {
    case "bash":
      return [
        { key: "fileChanges", label: "file changes", value: two(b.fileChanges), explain: "up to 0.33: falls as paths are changed by only one of you and gold" },
        {
          key: "fileContents",
          label: "file contents",
          value: two(b.fileContents),
          explain: "up to 0.33: share of the paths you both changed whose contents match gold's",
        },
        { key: "output", label: "output", value: two(b.output), explain: "up to 0.33: how alike the words of your last output and gold's output are (tf-idf)" },
      ];
    case "sql":
      return [
        {
          key: "overlap",
          label: "rows",
          value: two(b.overlap),
          explain: "rows shared by your last result and gold's, over all rows of both (intersection over union)",
        },
        {
          key: "order",
          label: "order",
          value: b.order === null || b.order === undefined ? "n/a" : two(b.order),
          explain: "how alike the order of the shared rows is (Kendall tau); n/a when order cannot be compared",
        },
      ];
    case "python": {
      const tests = Array.isArray(b.tests) ? (b.tests as { agree?: boolean }[]) : [];
      return [
        {
          key: "tests",
          label: "tests",
          value: `${tests.filter((t) => t.agree).length} / ${tests.length}`,
          explain: "hidden tests whose outcome (pass, fail, error) is the same for your function as for gold's",
        },
      ];
    }
    case "ctf":
      return [{ key: "match", label: "flag", value: b.match ? "matches" : "does not match", explain: "the submitted flag against the task's flag" }];
    default:
      return [];
  }
}
