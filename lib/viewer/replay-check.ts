import "server-only";
import type { Task } from "@/lib/datasets/types";
import type { Environment } from "@/lib/env/types";
import { parseSubmitAction } from "@/lib/ws/protocol";
import { stripAnsi } from "./ansi";

/** A recorded turn, as the check needs it. */
export interface RecordedTurn {
  index: number;
  action: string;
  observation: string;
  reward: number | null;
}

/** The check of one turn: what was recorded against what a fresh run gives. */
export interface TurnCheck {
  index: number;
  observationAgrees: boolean;
  /** null when the recorded turn has no reward to compare with. */
  rewardAgrees: boolean | null;
  recordedReward: number | null;
  replayedReward: number | null;
  replayedObservation: string;
}

export interface EpisodeCheck {
  turns: TurnCheck[];
  /** The episode's final reward against the replay's score after its last action (when both are known). */
  finalRewardAgrees: boolean | null;
  replayedFinalReward: number | null;
  error?: string;
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

export const rewardsAgree = (a: number, b: number) => Math.abs(a - b) <= REWARD_TOLERANCE;

/**
 * Re-runs the recorded actions of an episode in a fresh environment (reset on `task`) and compares
 * each turn's observation and reward with what was recorded. A submit action is scored by submit;
 * every other turn's reward is the environment's evaluate() after it, compared only when the
 * recording has one. The environment is closed at the end.
 */
export async function checkEpisodeReplay({
  task,
  turns,
  finalReward,
  env,
}: {
  task: Task;
  turns: RecordedTurn[];
  finalReward: number | null;
  env: Environment;
}): Promise<EpisodeCheck> {
  const out: TurnCheck[] = [];
  let last: number | null = null;
  try {
    await env.reset(task);
    let done = false;
    for (const t of turns) {
      if (done) break;
      const submitArg = parseSubmitAction(t.action);
      let observation: string;
      let reward: number | null = null;
      if (submitArg !== null) {
        const r = await env.submit(submitArg || undefined);
        observation = r.agentObservation;
        reward = r.reward;
        done = true;
      } else {
        const r = await env.step(t.action);
        observation = r.observation;
        if (r.submitted) {
          reward = r.submitted.reward;
          done = true;
        } else if (t.reward !== null || t === turns[turns.length - 1]) {
          reward = (await env.evaluate()).reward;
        }
      }
      if (reward !== null) last = reward;
      out.push({
        index: t.index,
        observationAgrees: normalizeObservation(observation) === normalizeObservation(t.observation),
        rewardAgrees: t.reward === null || reward === null ? null : rewardsAgree(t.reward, reward),
        recordedReward: t.reward,
        replayedReward: reward,
        replayedObservation: observation,
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
      turns++;
      if (t.observationAgrees) obs++;
      if (t.rewardAgrees !== null) {
        rc++;
        if (t.rewardAgrees) ra++;
      }
    }
    // Logs without per-turn rewards (InterCode's environment logs) still have the episode's reward.
    if (c.turns.every((t) => t.rewardAgrees === null) && c.finalRewardAgrees !== null) {
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
