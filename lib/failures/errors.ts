import { stripAnsi } from "@/lib/viewer/ansi";

/**
 * Reading errors out of a turn's output, per environment: which kind of error a turn hit (the
 * replay's suggested error tags), whether it hit one at all, and the error's message normalised so
 * that the same mistake on different tasks reads the same (the failure groups' clusters).
 * Client-safe: pure functions over text.
 */

/** A rule reading one turn's output: the first rule of an environment that matches names the turn's error. */
interface OutputRule {
  tag: string;
  re: RegExp;
}

const NO_SUCH_TABLE: OutputRule = { tag: "no-such-table", re: /(no such table|table '[^']+' doesn't exist|unknown table)/i };
const NO_SUCH_COLUMN: OutputRule = { tag: "no-such-column", re: /(no such column|unknown column)/i };
const QUERY_ERROR: OutputRule = {
  tag: "query-error",
  re: /(you have an error in your sql syntax|syntax error|operationalerror|programmingerror|\berror 1\d{3}\b|ambiguous column|misuse of aggregate|error executing query)/i,
};
const COMMAND_NOT_FOUND: OutputRule = { tag: "command-not-found", re: /(command not found|: not found$|no such command|is not recognized as)/im };
const NO_SUCH_FILE: OutputRule = { tag: "no-such-file", re: /(no such file or directory|cannot access|cannot open|not a directory)/i };
const NAME_ERROR: OutputRule = { tag: "name-error", re: /\bNameError\b/ };
const EXCEPTION: OutputRule = { tag: "exception", re: /(traceback \(most recent call last\)|\b\w*(error|exception)\b: )/i };

/**
 * Per environment, the error rules in order, most specific first; a turn gets at most one of them,
 * so a missing SQL table is no-such-table once, not also a query error (and never bash's no-such-file).
 */
export const OUTPUT_RULES: Record<string, readonly OutputRule[]> = {
  sql: [NO_SUCH_TABLE, NO_SUCH_COLUMN, QUERY_ERROR],
  bash: [COMMAND_NOT_FOUND, NO_SUCH_FILE],
  ctf: [COMMAND_NOT_FOUND, NO_SUCH_FILE],
  python: [NAME_ERROR, EXCEPTION],
};

export const TIMEOUT_RE = /(timed? ?out|time limit exceeded|killed after)/i;

/** Any other line that reads as an error, for the message of a turn that failed without a rule's match. */
const GENERIC_ERROR_RE = /(\berror\b|\bexception\b|\bfailed\b|\bdenied\b|\binvalid\b|\bfatal\b|\bcannot\b|\bunable to\b)/i;

/** What a turn needs for its error to be read. */
export interface TurnOutput {
  observation: string;
  ok: boolean | null;
  timedOut?: boolean;
}

/** A turn's error: the rule's tag (null when none matched but the turn failed) and the line that says it. */
export interface TurnError {
  tag: string | null;
  line: string;
  timeout: boolean;
}

/** The text without ANSI escapes; most outputs have none, and parsing them costs the import more than the rules. */
export function plainText(text: string): string {
  return text.includes("\u001b") ? stripAnsi(text) : text;
}

const firstLine = (text: string, re: RegExp) =>
  text
    .split("\n")
    .find((l) => re.test(l))
    ?.trim()
    .slice(0, 200) ?? "";

/** Whether the turn timed out: flagged so, or its output says so and it did not succeed. */
export function turnTimedOut(t: TurnOutput): boolean {
  return Boolean(t.timedOut) || (t.ok !== true && TIMEOUT_RE.test(t.observation));
}

/**
 * The error a turn hit, or null: a timeout, a rule of its environment matching its output, or a
 * turn the environment marked failed (ok === false), read by its first error-like (else first) line.
 */
export function turnError(environment: string, t: TurnOutput): TurnError | null {
  const obs = plainText(t.observation);
  if (turnTimedOut(t)) return { tag: "timeout", line: firstLine(obs, TIMEOUT_RE) || "the action timed out", timeout: true };
  const rule = (OUTPUT_RULES[environment] ?? []).find((r) => r.re.test(obs));
  if (rule) return { tag: rule.tag, line: firstLine(obs, rule.re) || obs.trim().slice(0, 200), timeout: false };
  if (t.ok === false) {
    const line = firstLine(obs, GENERIC_ERROR_RE) || obs.trim().split("\n")[0]?.trim().slice(0, 200) || "(no output)";
    return { tag: null, line, timeout: false };
  }
  return null;
}

/**
 * An error line with what differs between tasks taken out: quoted text, numbers, hex, paths and
 * names after "column:" or "table:" become placeholders, as does the command a shell names; lower case; spaces collapsed; at most
 * 120 characters. "no such column: T1.name" and "no such column: T2.age" both read
 * "no such column: <name>".
 */
export function normaliseError(line: string): string {
  return plainText(line)
    .toLowerCase()
    .trim()
    .replace(/^(\S*?\b(?:ba|z|da)?sh): (?:line \d+: |\d+: )?[^:]+:/, "$1: <cmd>:")
    .replace(/(["'`])(?:(?!\1).){0,200}\1/g, "<str>")
    .replace(/\b0x[0-9a-f]+\b/g, "<hex>")
    .replace(/(^|\s)\.{0,2}\/[\w.\-/]+/g, "$1<path>")
    .replace(/\b(column|table|name|module|attribute|file|function|variable|key)(s?):\s*[a-z_][\w.$]*/g, "$1$2: <name>")
    .replace(/\bline \d+/g, "line <n>")
    .replace(/\d+(\.\d+)?/g, "<n>")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 120);
}
