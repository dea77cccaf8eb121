// The shapes the episode read model hands out, as plain JSON. Client-safe: no server code here,
// so client components take their data types from this module, not from the queries.
import type { TurnRecord } from "./turn-record";

/** One row of the episode list: what the table shows, without the heavy text fields. */
export interface EpisodeListRow {
  id: string;
  environment: string;
  dataset: string;
  taskId: string;
  taskIndex: number | null;
  query: string;
  playerKind: string;
  annotator: string | null;
  model: string | null;
  policy: string | null;
  status: string;
  reward: number | null;
  success: boolean;
  turnCount: number;
  invalidCount: number;
  turnLimit: number;
  durationMs: number | null;
  hardness: string | null;
  tags: string[];
  /** What is odd about the episode as logged (lib/trajectories/flags.ts). */
  flags: string[];
  startedAt: Date;
  parentEpisodeId: string | null;
  runId: string | null;
  /** The task is sealed (lib/studies/baseline-seal.ts): reward and success are hidden. */
  sealed?: boolean;
}

/** One row of the viewer's episode table: the store list's row as plain JSON (dates are Unix milliseconds). */
export type ViewerRow = Omit<EpisodeListRow, "startedAt" | "hardness" | "runId"> & { startedAt: number };

/**
 * An episode's turn as the replay shows it: the turn record (lib/db/turn-record.ts) without the
 * model's raw reply and the start time. Its actor is any stored name (the column is text).
 */
export type ReplayTurn = Omit<TurnRecord, "rawReply" | "startedAt" | "actor"> & { actor: string };

export interface ReplayAnnotation {
  id: string;
  turnIndex: number | null;
  kind: string;
  tag: string | null;
  text: string | null;
  author: string;
  status: string;
  /** person, or a machine's: detector | scanner. */
  source: "person" | "detector" | "scanner";
  createdAt: number;
}

/** Everything the replay page needs of one episode, as plain JSON. */
export interface ReplayData {
  episode: Omit<ViewerRow, "turnCount" | "invalidCount"> & {
    gold: string | null;
    mode: string;
    errorReason: string | null;
    breakdown: unknown;
    solvedAtTurn: number | null;
    goldObservation: string | null;
    agentObservation: string | null;
    sourceFile: string | null;
    hardness: string | null;
    db: string | null;
    branchTurn: number | null;
    /** The turns the log itself counted (InterCode's turns_taken), when it says. */
    turnsTaken: number | null;
  };
  turns: ReplayTurn[];
  annotations: ReplayAnnotation[];
  parent: { id: string; reward: number | null; success: boolean; player: string } | null;
  children: { id: string; branchTurn: number | null; reward: number | null; status: string; player: string }[];
}

/** A turn as a window of the replay carries it: the observation cut to the window's size, with its whole length. */
export interface WindowTurn extends ReplayTurn {
  /** Characters of the whole observation; more than `observation.length` when it was cut. */
  observationChars: number;
}

/** Consecutive turns of an episode from turn index `from` (0-based), as the paged API hands them out. */
export interface TurnWindow {
  from: number;
  turns: WindowTurn[];
}

/**
 * The reward curve as the store aggregates it: one point per `bucket` turns (1 while the episode is
 * short), at the bucket's first turn index, with the highest recorded reward in the bucket.
 */
export interface RewardCurvePoints {
  bucket: number;
  points: { turn: number; reward: number | null }[];
}

/**
 * What the replay, compare and branch pages receive of an episode whatever its length: the header
 * (episode, annotations, lineage), its turn count, the reward curve's aggregate and one window of
 * turns; the other turns come from /api/episodes/:id/turns as the reader moves.
 */
export interface ReplayHeader extends Omit<ReplayData, "turns"> {
  turnCount: number;
  curve: RewardCurvePoints;
  window: TurnWindow;
}
