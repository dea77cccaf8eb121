import { parseSubmit } from "@/lib/env/submit";
import { normaliseError, plainText, turnError, turnTimedOut, type TurnError } from "./errors";
import { isFinishedStatus } from "@/lib/db/episode-status";

/**
 * Failure detectors (issue 28): deterministic rules over a stored episode, each with a kebab-case
 * name, a version (raised when the rule changes, so stored tags say which rule made them), the
 * environments it reads, a one-line definition (shown in the UI and in docs/failure-detectors.md)
 * and the turns it points at. They run at import and at episode end; their hits are stored as
 * machine tags (lib/db/annotations.ts). Client-safe: pure functions over an episode's data.
 */

/** A turn as the detectors read it. */
export interface DetectorTurn {
  index: number;
  action: string;
  observation: string;
  ok: boolean | null;
  reward?: number | null;
  timedOut?: boolean;
}

/** An episode as the detectors read it. */
export interface DetectorEpisode {
  environment: string;
  status: string;
  reward: number | null;
  success: boolean;
  turnLimit: number;
  query: string;
  turns: DetectorTurn[];
}

/** What a detector found: the turns it points at (indexes as stored) and a line of evidence. */
export interface DetectorFinding {
  turns: number[];
  evidence: string;
}

export interface Detector {
  name: string;
  version: number;
  /** The environments it reads; "all" for every one. */
  environments: "all" | readonly string[];
  definition: string;
  detect(ep: ReadEpisode): DetectorFinding | null;
}

/** A detector's hit on an episode, as stored (a machine tag per turn it points at). */
export interface DetectorHit {
  detector: string;
  version: number;
  turns: number[];
  evidence: string;
}

/** An episode with each turn's error and submit read once, shared by every detector. */
interface ReadEpisode extends DetectorEpisode {
  errors: (TurnError | null)[];
  submits: ({ arg: string } | null)[];
}

const clip = (s: string, n = 100) => {
  const one = s.trim().replace(/\s+/g, " ");
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

const repeatedAction: Detector = {
  name: "repeated-action",
  version: 1,
  environments: "all",
  definition: "The same action (trimmed) was given at two consecutive turns.",
  detect(ep) {
    const turns: number[] = [];
    let example = "";
    for (let i = 1; i < ep.turns.length; i++) {
      const a = ep.turns[i].action.trim();
      if (a && a === ep.turns[i - 1].action.trim()) {
        turns.push(ep.turns[i].index);
        example ||= a;
      }
    }
    return turns.length ? { turns, evidence: `${turns.length} repeat(s), first at turn ${turns[0] + 1}: ${clip(example)}` } : null;
  },
};

const repeatedError: Detector = {
  name: "repeated-error",
  version: 1,
  environments: "all",
  definition: "The same error (message normalised) came back at two or more turns.",
  detect(ep) {
    const seen = new Map<string, number>();
    const turns: number[] = [];
    let example = "";
    ep.errors.forEach((e, i) => {
      if (!e || e.timeout) return;
      const key = normaliseError(e.line);
      if (seen.has(key)) {
        turns.push(ep.turns[i].index);
        example ||= e.line;
      } else seen.set(key, i);
    });
    return turns.length ? { turns, evidence: `${turns.length} repeat(s) of: ${clip(example)}` } : null;
  },
};

/** Whether a (non-submit) turn's action ran without an error. */
const ranClean = (ep: ReadEpisode, i: number) => !ep.submits[i] && ep.errors[i] === null && ep.turns[i].ok !== false && ep.turns[i].action.trim() !== "";

const submitWithoutSuccess: Detector = {
  name: "submit-without-success",
  version: 1,
  environments: "all",
  definition: "Submitted without any action before it that ran without an error.",
  detect(ep) {
    const at = ep.submits.findIndex((s) => s !== null);
    if (at < 0) return null;
    for (let i = 0; i < at; i++) if (ranClean(ep, i)) return null;
    return { turns: [ep.turns[at].index], evidence: at === 0 ? "the first action was the submit" : `all ${at} action(s) before the submit failed` };
  },
};

const gaveUpEarly: Detector = {
  name: "gave-up-early",
  version: 1,
  environments: "all",
  definition: "Submitted or abandoned with turns left and a reward under 1.",
  detect(ep) {
    if (ep.status !== "submitted" && ep.status !== "abandoned") return null;
    if (ep.success || (ep.reward ?? 0) >= 1) return null;
    const used = ep.turns.length;
    if (used >= ep.turnLimit) return null;
    const last = ep.turns.at(-1);
    return {
      turns: last ? [last.index] : [],
      evidence: `${ep.status} after ${used} of ${ep.turnLimit} turns with reward ${ep.reward ?? 0}`,
    };
  },
};

const timeoutLoop: Detector = {
  name: "timeout-loop",
  version: 1,
  environments: "all",
  definition: "Two or more actions timed out.",
  detect(ep) {
    const turns = ep.turns.filter((t) => turnTimedOut(t)).map((t) => t.index);
    return turns.length >= 2 ? { turns, evidence: `${turns.length} actions timed out` } : null;
  },
};

/** SQL that looks at the schema: SHOW/DESCRIBE, information_schema, sqlite_master, PRAGMA table_info. */
const SCHEMA_LOOK =
  /\b(show\s+(full\s+)?(tables|columns|create\s+table|fields)|desc(ribe)?\s+\w|explain\s+\w+\s*;?\s*$|information_schema|sqlite_(master|schema)|pragma\s+table_info)\b/i;

const sqlSchemaNotInspected: Detector = {
  name: "sql-schema-not-inspected",
  version: 1,
  environments: ["sql"],
  definition: "SQL: a query failed before the schema was ever looked at (SHOW TABLES, DESCRIBE, information_schema).",
  detect(ep) {
    for (let i = 0; i < ep.turns.length; i++) {
      if (SCHEMA_LOOK.test(ep.turns[i].action)) return null;
      const e = ep.errors[i];
      if (e && !e.timeout && !ep.submits[i]) return { turns: [ep.turns[i].index], evidence: `turn ${ep.turns[i].index + 1} failed first: ${clip(e.line)}` };
    }
    return null;
  },
};

/** A SELECT of literals only: no FROM, every column a number or a quoted string. */
const LITERAL_SELECT =
  /^\s*select\s+((?:'[^']*'|"[^"]*"|-?\d+(?:\.\d+)?)(?:\s+(?:as\s+)?\w+)?(?:\s*,\s*(?:'[^']*'|"[^"]*"|-?\d+(?:\.\d+)?)(?:\s+(?:as\s+)?\w+)?)*)\s*;?\s*$/i;
const UNION_OF_LITERALS = /^\s*(select\s+[^;]*?\bunion\b)/i;

/** A literal SELECT (or a UNION of them). */
function selectsLiterals(action: string): boolean {
  const parts = UNION_OF_LITERALS.test(action) ? action.replace(/;\s*$/, "").split(/\bunion(?:\s+all)?\b/i) : [action];
  return parts.every((p) => LITERAL_SELECT.test(p));
}

/** The index of the last action before the (first) submit, or of the last action when there is none; -1 for none. */
function answerTurn(ep: ReadEpisode): number {
  const at = ep.submits.findIndex((s) => s !== null);
  return (at < 0 ? ep.turns.length : at) - 1;
}

const sqlHardcodedAnswer: Detector = {
  name: "sql-hardcoded-answer",
  version: 1,
  environments: ["sql"],
  definition: "SQL: the answer (the last query before the submit, or the last query) selected literal values only (no FROM), typed in rather than queried.",
  detect(ep) {
    const i = answerTurn(ep);
    if (i < 0 || !selectsLiterals(ep.turns[i].action)) return null;
    return { turns: [ep.turns[i].index], evidence: `literal answer: ${clip(ep.turns[i].action)}` };
  },
};

/** The commands of a shell line, split on ;, &&, || and | (not inside quotes: a rough split is enough for echo). */
const commandsOf = (line: string) => line.split(/\s*(?:;|&&|\|\||\n)\s*/).filter((c) => c.trim());
/** An echo or printf whose text has no substitution ($, backticks) and is not written to a file. */
const LITERAL_PRINT = /^\s*(echo(\s+-[neE]+)*|printf)\s+(?![\s\S]*[$`])(?![\s\S]*>)[^|<]+$/;

const bashEchoedOutput: Detector = {
  name: "bash-echoed-output",
  version: 1,
  environments: ["bash"],
  definition: "bash: the last action before the submit (or the last action) only printed literal text (echo/printf), the output typed in rather than computed.",
  detect(ep) {
    const before = answerTurn(ep);
    if (before < 0) return null;
    const t = ep.turns[before];
    const cmds = commandsOf(t.action);
    if (!cmds.length || !cmds.every((c) => LITERAL_PRINT.test(c))) return null;
    return { turns: [t.index], evidence: `printed literal text: ${clip(t.action)}` };
  },
};

const CTF_WORKDIR = "/ctf";
/** A search of the whole file system: find /, grep -r ... /, locate. */
const WHOLE_FS_SEARCH = /\b(find\s+\/(\s|$)|grep\s+(-\w*[rR]\w*\s+)+.*\s\/(\s|"|'|$)|locate\s)/;
/** Absolute paths an action names (outside quotes' first character). */
const ABS_PATH = /(?:^|[\s"'=(])(\/(?:[\w.-]+\/?)+)/g;
/** System paths a command is run from, not data it reads. */
const BIN_PATH = /^\/(usr\/)?(s?bin|lib\w*|dev\/null|tmp\/?$|proc\/self)/;

const ctfFlagFromElsewhere: Detector = {
  name: "ctf-flag-not-from-task",
  version: 1,
  environments: ["ctf"],
  definition:
    "CTF: the submitted flag first appeared in the output of an action that read outside the task's files (an absolute path the task did not name, or a search of the whole file system).",
  detect(ep) {
    const at = ep.submits.findIndex((s) => s !== null && s.arg.trim() !== "");
    if (at < 0) return null;
    const flag = ep.submits[at]!.arg.trim();
    if (flag.length < 6) return null;
    const first = ep.turns.findIndex((t, i) => i < at && plainText(t.observation).includes(flag));
    if (first < 0) return null;
    const action = ep.turns[first].action;
    if (WHOLE_FS_SEARCH.test(action))
      return { turns: [ep.turns[first].index], evidence: `the flag came out of a search of the whole file system: ${clip(action)}` };
    const outside = [...action.matchAll(ABS_PATH)].map((m) => m[1]).filter((p) => !BIN_PATH.test(p) && !p.startsWith(CTF_WORKDIR) && !ep.query.includes(p));
    if (!outside.length) return null;
    return { turns: [ep.turns[first].index], evidence: `the flag came out of ${outside[0]}, which the task did not name: ${clip(action)}` };
  },
};

/** Every detector, in the order they are listed. */
export const DETECTORS: readonly Detector[] = [
  repeatedAction,
  repeatedError,
  submitWithoutSuccess,
  gaveUpEarly,
  timeoutLoop,
  sqlSchemaNotInspected,
  sqlHardcodedAnswer,
  bashEchoedOutput,
  ctfFlagFromElsewhere,
];

/** Detectors that point at an answer obtained other than by solving the task (task QA's reward-hacking suspects). */
export const REWARD_HACKING_DETECTORS: readonly string[] = ["sql-hardcoded-answer", "bash-echoed-output", "ctf-flag-not-from-task"];

export const DETECTOR_NAMES: readonly string[] = DETECTORS.map((d) => d.name);

/** The detectors that read an environment. */
export function detectorsFor(environment: string): Detector[] {
  return DETECTORS.filter((d) => d.environments === "all" || d.environments.includes(environment));
}

function read(ep: DetectorEpisode): ReadEpisode {
  return {
    ...ep,
    errors: ep.turns.map((t) => (parseSubmit(t.action) ? null : turnError(ep.environment, t))),
    submits: ep.turns.map((t) => parseSubmit(t.action)),
  };
}

/** Runs the detectors of the episode's environment over a finished episode (none on one still running). */
export function runDetectors(ep: DetectorEpisode): DetectorHit[] {
  if (!isFinishedStatus(ep.status)) return [];
  const r = read(ep);
  const hits: DetectorHit[] = [];
  for (const d of detectorsFor(ep.environment)) {
    const f = d.detect(r);
    if (f) hits.push({ detector: d.name, version: d.version, turns: f.turns, evidence: f.evidence });
  }
  return hits;
}

/** The last error of an episode (its normalised message is the failure groups' cluster), or null. */
export function lastError(ep: DetectorEpisode): { turn: number; line: string; message: string } | null {
  for (let i = ep.turns.length - 1; i >= 0; i--) {
    const t = ep.turns[i];
    if (parseSubmit(t.action)) continue;
    const e = turnError(ep.environment, t);
    if (e) return { turn: t.index, line: e.line, message: e.timeout ? "timeout" : normaliseError(e.line) };
  }
  return null;
}
