// What the replay, compare and stats pages show, as plain data. Client-safe: no server code here,
// so client components take these types from this module; the server jobs (gold.ts,
// replay-check.ts, turn-scores.ts, aggregates.ts) compute them.
import type { StatsDimension } from "@/lib/db/stats-dimensions";
import type { RewardBreakdown } from "@/lib/reward/types";

/** The failure-analysis view's aggregates (lib/stats/aggregates.ts computes them). */
export interface ViewerStats {
  groupBy: StatsDimension[];
  /** Success rate, mean reward and error rate per group (the first groups: see groupsTotal). */
  success: { group: string; episodes: number; solved: number; successRate: number; meanReward: number; meanTurns: number; errorRate: number | null }[];
  /** How many groups there are (`success` may hold fewer; the CSV holds all). */
  groupsTotal: number;
  /** Per charted group, the share solved within k turns: the paper's success-vs-turn-limit curve (the k where it steps; every k in the CSV). */
  successAtK: { k: number; [group: string]: number }[];
  groups: string[];
  rewardHistogram: { bin: string; episodes: number }[];
  invalidByTurn: { turn: number; checked: number; invalid: number; rate: number }[];
  tags: { tag: string; episodes: number }[];
}

/** Gold's output for a task, and the breakdown of gold scored against itself (bash: file changes). */
export interface GoldOutput {
  gold: string;
  observation: string;
  details: { breakdown?: RewardBreakdown } | null;
  cached: boolean;
}

/**
 * Why a turn's replay differs from the recording (a heuristic on the action, gold and the two
 * texts; see categorize): "time" (clocks, dates, load), "process ids" (process and container ids),
 * "network" (the sandbox has none; InterCode's containers had), "host" (the machine under the
 * container: kernel, mounts, the sandbox's isolation), "tool versions", "order", "reward formula"
 * (same observation, another reward), "loop", "environment content" (other files, rows, data the
 * Studio's environment gets wrong) and "the log's environment differed" (the log names a table the
 * task's database lacks: no replay can agree; `evidence` says what).
 */
export const DISAGREEMENT_CATEGORIES = [
  "environment content",
  "the log's environment differed",
  "time",
  "process ids",
  "network",
  "host",
  "reward formula",
  "loop",
  "tool versions",
  "order",
] as const;
export type DisagreementCategory = (typeof DISAGREEMENT_CATEGORIES)[number];

/** The check of one turn: what was recorded against what a fresh run gives. */
export interface TurnCheck {
  index: number;
  /** The logged action as the loop read it (`execute[...]` unwrapped); absent when the same as logged. */
  ranAction?: string;
  /** The submit a ReAct loop appended at its turn limit: replayed for the final reward, not a turn. */
  forcedSubmit?: boolean;
  /** Set when observation or reward disagree. */
  category?: DisagreementCategory;
  /** With "the log's environment differed": what the log holds that the task's environment lacks. */
  evidence?: string;
  recordedObservation?: string;
  observationAgrees: boolean;
  /** null when the recorded turn has no reward to compare with. */
  rewardAgrees: boolean | null;
  recordedReward: number | null;
  replayedReward: number | null;
  replayedObservation: string;
  /** SQL: the column names of the replayed query's result set. */
  columns?: string[];
}

export interface EpisodeCheck {
  turns: TurnCheck[];
  /** The episode's final reward against the replay's score after its last action (when both are known). */
  finalRewardAgrees: boolean | null;
  replayedFinalReward: number | null;
  error?: string;
}

/** One turn as the replay page scores it. */
export interface TurnScore {
  index: number;
  /** What a submit would have scored right after this turn: recorded, or found by a replay. */
  reward: number | null;
  rewardFrom: "recorded" | "replay" | null;
  /** The turn's output is gold's output (after normalising escapes and trailing space); null when gold's is unknown or says nothing. */
  matchesGold: boolean | null;
  /** Whether the replay's output agreed with the recorded one (null when not replayed). */
  replayAgrees: boolean | null;
  /** SQL: the result set's column names from the engine (when replayed). */
  columns: string[] | null;
}

export interface TurnScores {
  /** The first turn index of the page the scores are of (POST /api/episodes/:id/turn-scores?from=&limit=). */
  from?: number;
  turns: TurnScore[];
  /**
   * With `curve=1`, when turns lack a recorded reward: the replay's would-be rewards aggregated as
   * the reward curve is (one point per `bucket` turns, the highest), to fill the curve's gaps.
   */
  curve?: { bucket: number; points: { turn: number; reward: number | null }[] };
  /** "recorded": every turn had its reward; "cached": an earlier replay's; "replayed": just run in a fresh sandbox. */
  source: "recorded" | "cached" | "replayed";
  /** Why the would-be rewards or gold's output are missing, when they are. */
  error?: string;
}
