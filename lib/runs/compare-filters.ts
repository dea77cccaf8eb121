import "server-only";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { listEpisodeOutcomesByFilters, type EpisodeOutcomeRow } from "@/lib/db/episode-outcomes";
import { comparePaired, type PairedOptions, type PairedSummary } from "@/lib/stats/paired";
import { pairedOutcomes, pairRuns, type PairableRow } from "./pair-runs";

/** Two filtered sets of episodes compared task by task, as `icstudio compare-runs --json` prints it. */
export interface FilterComparison extends PairedSummary {
  /** Finished episodes each filter matched. */
  episodes: { a: number; b: number };
  /** Tasks only one side has a finished episode of (left out of the four counts). */
  unpaired: number;
  /** Per Spider hardness or bash file system, when the tasks have one. */
  groups: Array<{ group: string } & PairedSummary>;
}

/** A task is its environment, dataset and id (two datasets may share an id). */
function toRow(e: EpisodeOutcomeRow): PairableRow {
  return {
    taskId: `${e.environment}/${e.dataset}/${e.taskId}`,
    episodeId: e.id,
    status: e.status,
    reward: e.reward,
    success: e.success,
    group: e.hardness ?? e.db,
  };
}

/**
 * Pairs the finished episodes of two filters by task (pairRuns, the runs comparison's pairing;
 * a task with several episodes on one side is paired on its latest) and tests the difference:
 * McNemar's exact test and the paired bootstrap interval, overall and per group.
 */
export async function compareFilteredEpisodes({
  a,
  b,
  options = {},
}: {
  a: EpisodeFilters;
  b: EpisodeFilters;
  options?: PairedOptions;
}): Promise<FilterComparison> {
  const [ra, rb] = await Promise.all([listEpisodeOutcomesByFilters({ filters: a }), listEpisodeOutcomesByFilters({ filters: b })]);
  const pairing = pairRuns(ra.map(toRow), rb.map(toRow));
  const { overall, groups } = comparePaired(pairedOutcomes(pairing), options);
  return { ...overall, episodes: { a: ra.length, b: rb.length }, unpaired: pairing.unpaired, groups };
}
