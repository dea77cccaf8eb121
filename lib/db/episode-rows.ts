// The shapes the episode read model hands out, as plain JSON. Client-safe: no server code here,
// so client components take their data types from this module, not from the queries.
import type { EpisodeRow, TurnRow } from "./record";

/** The columns of a list row: what the table shows, without the heavy text fields (lib/db/episodes.ts cuts the query). */
export const LIST_COLUMNS = [
  "id",
  "environment",
  "dataset",
  "taskId",
  "taskIndex",
  "query",
  "playerKind",
  "annotator",
  "model",
  "policy",
  "status",
  "reward",
  "success",
  "turnCount",
  "invalidCount",
  "turnLimit",
  "durationMs",
  "hardness",
  "tags",
  "flags",
  "startedAt",
  "parentEpisodeId",
  "runId",
] as const;
/** One row of the episode list, its space-separated names as lists and its start as a Date. */
export type EpisodeListRow = Omit<Pick<EpisodeRow, (typeof LIST_COLUMNS)[number]>, "tags" | "flags" | "startedAt"> & {
  tags: string[];
  /** What is odd about the episode as logged (lib/trajectories/flags.ts). */
  flags: string[];
  startedAt: Date;
  /** The task is sealed (lib/studies/baseline-seal.ts): reward and success are hidden. */
  sealed?: boolean;
};

/** One row of the viewer's episode table: the store list's row as plain JSON (dates are Unix milliseconds). */
export type ViewerRow = Omit<EpisodeListRow, "startedAt" | "hardness" | "runId"> & { startedAt: number };

/** An episode's turn as the replay shows it: the stored turn without the model's raw reply and the start time. */
export type ReplayTurn = Omit<TurnRow, "id" | "episodeId" | "createdAt" | "rawReply" | "startedAt">;

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

/** The columns of an episode the replay shows. */
export const REPLAY_EPISODE = [
  "id",
  "environment",
  "dataset",
  "taskId",
  "taskIndex",
  "query",
  "gold",
  "playerKind",
  "annotator",
  "model",
  "policy",
  "turnLimit",
  "mode",
  "status",
  "errorReason",
  "reward",
  "breakdown",
  "success",
  "solvedAtTurn",
  "goldObservation",
  "agentObservation",
  "startedAt",
  "durationMs",
  "sourceFile",
  "hardness",
  "db",
  "tags",
  "flags",
  "turnsTaken",
  "parentEpisodeId",
  "branchTurn",
] as const;
/** Everything the replay page needs of one episode, as plain JSON. */
export interface ReplayData {
  /** Its space-separated names as lists, its breakdown parsed. */
  episode: Omit<Pick<EpisodeRow, (typeof REPLAY_EPISODE)[number]>, "tags" | "flags" | "breakdown"> & {
    tags: string[];
    flags: string[];
    breakdown: unknown;
    sealed?: boolean;
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
