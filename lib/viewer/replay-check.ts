import "server-only";
import { parseLoggedAction } from "@/lib/agent/parse-action";
import type { Task } from "@/lib/datasets/types";
import { DEFAULT_PYTHON_FEEDBACK, detectPythonFeedback, rewrittenPythonObservation } from "@/lib/env/intercode-loop";
import { profileValue, type ProfileName } from "@/lib/env/profiles";
import type { Environment } from "@/lib/env/types";
import { stripAnsi } from "./ansi";
import type { DisagreementCategory, EpisodeCheck, TurnCheck } from "./view-types";

/** A recorded turn, as the check needs it. */
export interface RecordedTurn {
  index: number;
  action: string;
  observation: string;
  reward: number | null;
}

/** The loop that produced a recorded episode, which the replay runs again. */
export interface ReplayLoop {
  /** InterCode's logs replay under "intercode"; the Studio's own episodes under "studio". */
  profile: ProfileName;
  /** The policy that played (try-again, react, plan-solve, single-turn; null: a person or unknown). */
  policy: string | null;
  /** The episode's turn limit: a ReAct `submit` logged past it is the forced final submit. */
  turnLimit: number | null;
}

/** Rewards agree within this (InterCode's logs hold unrounded floats; the Studio rounds to 2 places). */
export const REWARD_TOLERANCE = 0.01 + 1e-9;

/**
 * Normalises an observation for comparison: escape sequences and trailing white space on every
 * line dropped, line endings unified, leading and trailing blank lines dropped.
 */
export function normalizeObservation(s: string): string {
  return stripAnsi(unwrapPythonResult(s))
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")
    .trim();
}

/** Decodes a Python string literal ('...' or "...") starting at `i`; returns the text and the index after it. */
function readPyString(s: string, i: number): { text: string; end: number } | null {
  const q = s[i];
  if (q !== "'" && q !== '"') return null;
  let out = "";
  const esc: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === q) return { text: out, end: j + 1 };
    if (c === "\\") {
      const n = s[++j];
      if (n === "x") {
        out += String.fromCharCode(parseInt(s.slice(j + 1, j + 3), 16));
        j += 2;
      } else out += esc[n] ?? "\\" + n;
    } else out += c;
  }
  return null;
}

/**
 * InterCode's Python logs record each observation as the repr of a dict,
 * `{'output': '...', 'error': '...'}`; the Studio's observation is the printed text. This turns the
 * former into output followed by error, and leaves anything else as it is.
 */
export function unwrapPythonResult(s: string): string {
  const head = "{'output': ";
  if (!s.startsWith(head)) return s;
  const out = readPyString(s, head.length);
  if (!out || !s.startsWith(", 'error': ", out.end)) return s;
  const err = readPyString(s, out.end + ", 'error': ".length);
  if (!err || s.slice(err.end).trim() !== "}") return s;
  return err.text ? `${out.text}${out.text && !out.text.endsWith("\n") ? "\n" : ""}${err.text}` : out.text;
}

/**
 * InterCode's environment logs of SQL hold rows back to back, `(1, 'a')(2, 'b')`; its model loops
 * hold `str()` of the row list, `[(1, 'a'), (2, 'b')]`. For comparing the two, this turns the list
 * form into the other (a string value holding "), (" would be joined too: close enough to compare).
 */
export function unwrapRowList(s: string): string {
  const t = s.trim();
  if (t === "[]") return "";
  if (!t.startsWith("[(") || !t.endsWith(")]")) return s;
  return t.slice(1, -1).split("), (").join(")(");
}

export const rewardsAgree = (a: number, b: number) => Math.abs(a - b) <= REWARD_TOLERANCE;

const MASK_VOLATILE = [
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\b/g,
  /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d+ [\d:]+( \w+)? \d{4}\b/g,
  /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d+\s+(\d{2}:\d{2}|\d{4})\b/g,
  /\b\d{1,2}:\d{2}(:\d{2})?\b/g,
  /0x[0-9a-f]+/gi,
  /\b\d+\b/g,
];
const TOOL_MESSAGES = /command not found|invalid syntax|SyntaxError|not installed|No module named|illegal option|unrecognized option|invalid option|usage:/i;

/**
 * Sorts a disagreeing turn into one cause, from the two texts: the same lines in another order is
 * "order"; the same once numbers, times and addresses are masked is "nondeterminism"; the same
 * observation with a different reward is "reward formula"; a tool's own complaint on either side
 * is "tool versions"; a loop's text (`Please try again`, `execute[`) or a replay that stopped is
 * "loop"; anything else is "environment content" (different files, rows or data).
 */
export function categorize(recorded: string, replayed: string, observationAgrees: boolean, replayError?: string): DisagreementCategory {
  if (replayError) return "loop";
  if (observationAgrees) return "reward formula";
  const a = normalizeObservation(unwrapRowList(recorded));
  const b = normalizeObservation(unwrapRowList(replayed));
  const lines = (x: string) => x.split(/\n|(?<=\))(?=\()/).sort().join("\n");
  if (lines(a) === lines(b)) return "order";
  const mask = (x: string) => MASK_VOLATILE.reduce((t, re) => t.replace(re, "#"), x);
  if (mask(a) === mask(b)) return "nondeterminism";
  if (/Please try again\.?$|^execute\[/.test(a) || /Please try again\.?$/.test(b)) return "loop";
  // A query that failed on one engine and ran on the other: a different server version or mode.
  if (a.startsWith("Error executing query") !== b.startsWith("Error executing query")) return "tool versions";
  if (TOOL_MESSAGES.test(a) !== TOOL_MESSAGES.test(b) || (TOOL_MESSAGES.test(a) && TOOL_MESSAGES.test(b))) return "tool versions";
  return "environment content";
}

/**
 * Re-runs the recorded actions of an episode in a fresh environment (reset on `task`) with the
 * loop that recorded them, and compares each turn's observation and reward with the recording.
 * The loop decides how an action reads (`execute[...]`, `cmd ...`, `blocked`), which rewrites of
 * an observation it made (profile rows), and when a turn was scored: a turn is scored with
 * evaluate() when the recording has a reward for it (under profile intercode that score has the
 * side effects InterCode's had), a submit by submit. `env` must have been created under
 * `loop.profile`; it is closed at the end.
 */
export async function checkEpisodeReplay({
  task,
  turns,
  finalReward,
  env,
  loop = { profile: "studio", policy: null, turnLimit: null },
  scoreEvery = false,
}: {
  task: Task;
  turns: RecordedTurn[];
  finalReward: number | null;
  env: Environment;
  loop?: ReplayLoop;
  /** Score every turn with evaluate() (the replay page's would-be rewards), not only those the recording scored. */
  scoreEvery?: boolean;
}): Promise<EpisodeCheck> {
  const out: TurnCheck[] = [];
  let last: number | null = null;
  const multiStep = loop.policy === "react" || (loop.policy?.startsWith("plan-solve") ?? false);
  const format = {
    executeBrackets: multiStep && profileValue(loop.profile, "react.action-format") === "execute-brackets",
    cmdWrapper: task.env === "ctf" && profileValue(loop.profile, "ctf.action-format") === "cmd-wrapper",
  };
  const rewrite =
    task.env === "python" && loop.policy?.startsWith("try-again") === true && profileValue(loop.profile, "python.try-again-feedback") === "rewritten-test-feedback"
      ? (detectPythonFeedback(turns.map((t) => t.observation)) ?? DEFAULT_PYTHON_FEEDBACK)
      : null;
  try {
    await env.reset(task);
    let done = false;
    for (const [i, t] of turns.entries()) {
      if (done) break;
      const parsed = parseLoggedAction(t.action, format);
      if (parsed.kind === "blocked") continue;
      let observation: string;
      let reward: number | null = null;
      let columns: string[] | undefined;
      const isLast = i === turns.length - 1;
      const forcedSubmit =
        parsed.kind === "submit" && isLast && loop.policy === "react" && loop.turnLimit !== null && t.index >= loop.turnLimit && profileValue(loop.profile, "react.forced-submit") === "appended-not-counted";
      if (parsed.kind === "submit") {
        // Typed as an action, as the loop sent it: the environment's own submit observation.
        const r = await env.step(parsed.arg ? `submit ${parsed.arg}` : "submit");
        const s = r.submitted ?? (await env.submit(parsed.arg || undefined));
        observation = r.submitted ? r.observation : s.agentObservation;
        reward = s.reward;
        done = true;
      } else {
        const r = await env.step(parsed.code);
        observation = r.observation;
        columns = r.columns;
        if (r.submitted) {
          reward = r.submitted.reward;
          done = true;
        } else if (scoreEvery || t.reward !== null || (isLast && (task.env !== "python" || profileValue(loop.profile, "python.after-score") === "unchanged"))) {
          const ev = await env.evaluate();
          reward = ev.reward;
          if (rewrite && task.env === "python") observation = rewrittenPythonObservation(rewrite, ev, task.tests) ?? observation;
        }
      }
      if (reward !== null) last = reward;
      const comparable = (x: string) => normalizeObservation(task.env === "sql" ? unwrapRowList(x) : x);
      const observationAgrees = comparable(observation) === comparable(t.observation);
      const rewardAgrees = t.reward === null || reward === null ? null : rewardsAgree(t.reward, reward);
      out.push({
        index: t.index,
        ...(parsed.kind === "run" && parsed.code !== t.action ? { ranAction: parsed.code } : {}),
        ...(forcedSubmit ? { forcedSubmit: true } : {}),
        ...(!observationAgrees || rewardAgrees === false ? { category: categorize(t.observation, observation, observationAgrees) } : {}),
        recordedObservation: t.observation,
        observationAgrees,
        rewardAgrees,
        recordedReward: t.reward,
        replayedReward: reward,
        replayedObservation: observation,
        ...(columns ? { columns } : {}),
      });
    }
    return { turns: out, finalRewardAgrees: finalReward === null || last === null ? null : rewardsAgree(finalReward, last), replayedFinalReward: last };
  } catch (err) {
    return { turns: out, finalRewardAgrees: null, replayedFinalReward: last, error: (err as Error).message };
  } finally {
    await env.close().catch(() => {});
  }
}

/** Shares of agreeing turns over many checked episodes (fractions; null when nothing to compare). */
export function summarizeChecks(checks: EpisodeCheck[]): { episodes: number; turns: number; observationAgree: number | null; rewardAgree: number | null; rewardCompared: number; errors: number } {
  let turns = 0;
  let obs = 0;
  let rc = 0;
  let ra = 0;
  for (const c of checks) {
    for (const t of c.turns) {
      if (t.forcedSubmit) continue;
      turns++;
      if (t.observationAgrees) obs++;
      if (t.rewardAgrees !== null) {
        rc++;
        if (t.rewardAgrees) ra++;
      }
    }
    // Logs without per-turn rewards (InterCode's environment logs) still have the episode's reward.
    if (c.turns.every((t) => t.rewardAgrees === null || t.forcedSubmit) && c.finalRewardAgrees !== null) {
      rc++;
      if (c.finalRewardAgrees) ra++;
    }
  }
  return {
    episodes: checks.length,
    turns,
    observationAgree: turns ? obs / turns : null,
    rewardAgree: rc ? ra / rc : null,
    rewardCompared: rc,
    errors: checks.filter((c) => c.error).length,
  };
}
