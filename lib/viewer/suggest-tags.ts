import { stripAnsi } from "@/lib/viewer/ansi";
import { isSubmit } from "@/lib/env/submit";

/** The starting taxonomy of failure tags; users extend it by using new tag names. */
export const BASE_TAXONOMY: readonly { tag: string; description: string }[] = [
  { tag: "query-error", description: "SQL: a query failed (syntax, unknown column, ...)" },
  { tag: "no-such-table", description: "SQL: a table that does not exist was queried" },
  { tag: "no-such-column", description: "SQL: a column that does not exist was referenced" },
  { tag: "command-not-found", description: "bash, CTF: a command or program that does not exist was called" },
  { tag: "no-such-file", description: "bash, CTF: a path that does not exist was referenced" },
  { tag: "exception", description: "Python: the code raised an exception" },
  { tag: "name-error", description: "Python: a name that is not defined was used" },
  { tag: "timeout", description: "an action ran past the time limit" },
  { tag: "repeated-action", description: "the same action was given again right after itself" },
  { tag: "gave-up", description: "the episode ended without a submit, or with an empty or skip answer" },
  { tag: "wrong-answer", description: "submitted an answer that did not get the full reward" },
  { tag: "invalid-action", description: "an action could not be executed" },
  { tag: "misread-task", description: "the player solved a different problem than the one asked" },
];

/** What a suggestion rule needs to know of a turn. */
export interface TurnForTags {
  index: number;
  action: string;
  observation: string;
  ok: boolean | null;
  reward: number | null;
  timedOut?: boolean;
}

export interface EpisodeForTags {
  environment: string;
  status: string;
  reward: number | null;
  success: boolean;
  turns: TurnForTags[];
}

/** A tag suggested by a rule, on a turn or (turnIndex null) on the episode. */
export interface SuggestedTag {
  tag: string;
  turnIndex: number | null;
  reason: string;
}

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

const TIMEOUT = /(timed? ?out|time limit exceeded|killed after)/i;
const SKIP = /^\s*(skip|exit|quit|give up|pass)\s*;?\s*$/i;

/**
 * Reads an episode's turns and suggests failure tags in its environment's words (OUTPUT_RULES: a
 * missing table or a query error for SQL, a command not found or a missing file for bash, an
 * exception for Python), a timeout, the same action repeated, giving up or skipping, and a wrong
 * submitted answer. Each tag is suggested at most once per turn, and a turn gets at most one error
 * tag. Each suggestion names its turn and the evidence, for a person to accept or reject.
 */
export function suggestTags(ep: EpisodeForTags): SuggestedTag[] {
  const out: SuggestedTag[] = [];
  const seen = new Set<string>();
  const add = (tag: string, turnIndex: number | null, reason: string) => {
    const key = `${tag}@${turnIndex}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ tag, turnIndex, reason });
  };
  let prev: string | null = null;
  let prevObs: string | null = null;
  const rules = OUTPUT_RULES[ep.environment] ?? [];
  for (const t of ep.turns) {
    const obs = stripAnsi(t.observation);
    const firstLine = (re: RegExp) => obs.split("\n").find((l) => re.test(l))?.trim().slice(0, 160) ?? "";
    const submit = isSubmit(t.action);
    if (t.timedOut || (TIMEOUT.test(obs) && t.ok !== true)) add("timeout", t.index, firstLine(TIMEOUT) || "the action timed out");
    else if (!(submit && obs === prevObs)) {
      // A submit whose output is the last output again shows the answer it scored, not a new error
      // (InterCode's SQL logs also hold "submit;" run as a query, which is one).
      const rule = rules.find((r) => r.re.test(obs));
      if (rule) add(rule.tag, t.index, firstLine(rule.re) || obs.trim().slice(0, 160));
    }
    const norm = t.action.trim().replace(/\s+/g, " ");
    if (prev !== null && norm === prev && norm !== "") add("repeated-action", t.index, `same action as turn ${t.index}: ${norm.slice(0, 80)}`);
    prev = norm;
    prevObs = obs;
    if (SKIP.test(t.action)) add("gave-up", t.index, `the player typed "${t.action.trim()}"`);
    if (submit && !ep.success && t.reward !== null && t.reward < 1) add("wrong-answer", t.index, `submitted with reward ${t.reward}`);
  }
  const has = (tag: string) => out.some((s) => s.tag === tag);
  if (ep.status === "abandoned" && !has("gave-up")) add("gave-up", null, "the episode was abandoned without a submit");
  else if (!ep.turns.length && ep.status !== "running" && ep.status !== "abandoned") add("gave-up", null, "the episode has no actions");
  if (ep.status === "submitted" && !ep.success && !has("wrong-answer")) {
    add("wrong-answer", ep.turns.length ? ep.turns[ep.turns.length - 1].index : null, `ended with reward ${ep.reward ?? 0}, below 1.0`);
  }
  return out;
}
