import { stripAnsi } from "./ansi";

/** The starting taxonomy of failure tags; users extend it by using new tag names. */
export const BASE_TAXONOMY: readonly { tag: string; description: string }[] = [
  { tag: "query-error", description: "a query or statement failed (syntax, unknown column, ...)" },
  { tag: "command-not-found", description: "a command or program that does not exist was called" },
  { tag: "no-such-file", description: "a path, table or name that does not exist was referenced" },
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

const QUERY_ERROR = /(you have an error in your sql syntax|syntax error|unknown column|no such column|operationalerror|programmingerror|\berror 1\d{3}\b|ambiguous column|misuse of aggregate|traceback \(most recent call last\)|\b(name|type|value|key|index|attribute)error\b)/i;
const NOT_FOUND_CMD = /(command not found|: not found$|no such command|is not recognized as)/im;
const NO_SUCH = /(no such file or directory|no such table|table '[^']+' doesn't exist|unknown table|cannot access|cannot open|does not exist|not a directory)/i;
const TIMEOUT = /(timed? ?out|time limit exceeded|killed after)/i;
const SUBMIT = /^\s*submit\b/i;
const SKIP = /^\s*(skip|exit|quit|give up|pass)\s*;?\s*$/i;

/**
 * Reads an episode's turns and suggests failure tags: a query error, a command not found, a
 * missing file or table, a timeout, the same action repeated, giving up or skipping, and a wrong
 * submitted answer. Each suggestion names its turn and the evidence, for a person to accept or reject.
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
  for (const t of ep.turns) {
    const obs = stripAnsi(t.observation);
    const firstLine = (re: RegExp) => obs.split("\n").find((l) => re.test(l))?.trim().slice(0, 160) ?? "";
    if (t.timedOut || (TIMEOUT.test(obs) && t.ok !== true)) add("timeout", t.index, firstLine(TIMEOUT) || "the action timed out");
    if (NOT_FOUND_CMD.test(obs)) add("command-not-found", t.index, firstLine(NOT_FOUND_CMD));
    else if (NO_SUCH.test(obs)) add("no-such-file", t.index, firstLine(NO_SUCH));
    if (QUERY_ERROR.test(obs) && (ep.environment === "sql" || ep.environment === "python" || t.ok === false)) add("query-error", t.index, firstLine(QUERY_ERROR));
    const norm = t.action.trim().replace(/\s+/g, " ");
    if (prev !== null && norm === prev && norm !== "") add("repeated-action", t.index, `same action as turn ${t.index}: ${norm.slice(0, 80)}`);
    prev = norm;
    if (SKIP.test(t.action)) add("gave-up", t.index, `the player typed "${t.action.trim()}"`);
    if (SUBMIT.test(t.action) && !ep.success && t.reward !== null && t.reward < 1) add("wrong-answer", t.index, `submitted with reward ${t.reward}`);
  }
  if (ep.status === "abandoned") add("gave-up", null, "the episode was abandoned without a submit");
  else if (!ep.turns.length && ep.status !== "running") add("gave-up", null, "the episode has no actions");
  if (ep.status === "submitted" && !ep.success && !out.some((s) => s.tag === "wrong-answer")) {
    add("wrong-answer", ep.turns.length ? ep.turns[ep.turns.length - 1].index : null, `ended with reward ${ep.reward ?? 0}, below 1.0`);
  }
  return out;
}
