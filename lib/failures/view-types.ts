/**
 * The failure groups' and task QA's shapes, as the CLI prints them and the pages render them.
 * Client-safe: types only.
 */

export type FailureGroupBy = "detector" | "cluster";

/** A failing episode in a group, with the turn the group points at (null: the whole episode). */
export interface FailureGroupEpisode {
  episodeId: string;
  environment: string;
  taskId: string;
  model: string | null;
  policy: string | null;
  hardness: string | null;
  reward: number | null;
  turn: number | null;
}

/** Failing episodes that went wrong the same way. */
export interface FailureGroup {
  /** Derived from the key alone: stable across re-runs of the grouping and across stores. */
  id: string;
  key: { detector: string } | { cluster: string };
  /** The detector's one-line definition; null for a cluster or "none". */
  definition: string | null;
  episodes: number;
  /** Episodes per model ("person:NAME" for a person's, "-" when unknown), policy, hardness, environment. */
  byModel: Record<string, number>;
  byPolicy: Record<string, number>;
  byHardness: Record<string, number>;
  byEnvironment: Record<string, number>;
  /** Episodes per model and policy together (largest first), for the page's model/policy columns. */
  byModelPolicy: { model: string | null; policy: string | null; episodes: number }[];
  /** The first few episodes (by environment, task, model, policy, turn). */
  examples: FailureGroupEpisode[];
}

export interface FailureGroupsResult {
  groupBy: FailureGroupBy;
  /** Failing episodes matched (an episode counts once here, and in every detector group it falls in). */
  failing: number;
  groups: FailureGroup[];
}

/** A task suspected of a broken gold or of being solvable by reward hacking, with the evidence. */
export interface TaskSuspect {
  environment: string;
  dataset: string;
  taskId: string;
  kind: "gold-check-failed" | "models-agree-against-gold" | "reward-hacking";
  /** One line, for a maintainer. */
  evidence: string;
  /** The episodes behind it (empty for a gold-check failure), with the turn to look at. */
  episodes: { episodeId: string; model: string | null; policy: string | null; turn: number | null; detail: string }[];
}

export interface TasksQaResult {
  suspects: TaskSuspect[];
  counts: Record<TaskSuspect["kind"], number>;
}
