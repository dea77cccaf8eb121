import "server-only";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { aggregateEpisodeStats, type StatsGroupRow } from "@/lib/db/stats";
import { STATS_DIMENSIONS, type StatsDimension } from "@/lib/db/stats-dimensions";
import { BadInputError } from "@/lib/errors";

/** The paper's measures for one group of episodes. Rates are fractions in [0, 1]. */
export interface StatsGroup {
  key: Partial<Record<StatsDimension, string | number | null>>;
  episodes: number;
  solved: number;
  /** Share of episodes whose reward reached 1.0. */
  successRate: number;
  meanReward: number;
  /**
   * Mean number of turns taken, as the log counted them where it says (InterCode's
   * summary.turns_taken, without ReAct's forced final submit), else the stored turns.
   */
  meanTurns: number;
  /**
   * For each episode the share of its actions that failed to execute, averaged over episodes
   * (as the InterCode paper reports it). Episodes whose logs do not say whether an action
   * executed are left out; null when none says.
   */
  errorRate: number | null;
  /** successAtK[k-1]: share of episodes solved within their first k turns, k = 1..turn limit. */
  successAtK: number[];
}

export interface StatsResult {
  groups: StatsGroup[];
}

/** The default grouping: one row per environment, dataset, player kind, model and policy. */
export const DEFAULT_GROUP_BY: StatsDimension[] = ["env", "dataset", "actor", "model", "policy"];

/** Parses `env,model,...` into dimensions, naming an unknown one. */
export function parseGroupBy(text: string | undefined): StatsDimension[] {
  if (text === undefined || text.trim() === "") return DEFAULT_GROUP_BY;
  const dims = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const d of dims)
    if (!(d in STATS_DIMENSIONS))
      throw new BadInputError(`unknown dimension ${JSON.stringify(d)}; one of ${Object.keys(STATS_DIMENSIONS).join(", ")}`, "--group-by");
  return [...new Set(dims)] as StatsDimension[];
}

/** A group's sums, as lib/db/stats.ts aggregates them (one row per episode never leaves the store). */
export type MeasureSums = Pick<StatsGroupRow, "episodes" | "solved" | "rewardSum" | "turnSum" | "errorShareSum" | "errorEpisodes">;

/**
 * The paper's measures of a group of episodes, the only place they are computed (the eval
 * summary, the runs page, `icstudio stats`, the stats page and its CSV all come here):
 * - success rate: the share of episodes whose reward reached 1.0;
 * - mean turns: turns as InterCode counted them (an episode's `turnsTaken` where its loop or log
 *   says, which leaves out ReAct's forced final submit; else its stored turns), averaged;
 * - error rate: each episode's share of actions that failed to execute, averaged over the
 *   episodes that say (null when none does).
 */
export function paperMeasures(s: MeasureSums): { successRate: number; meanReward: number; meanTurns: number; errorRate: number | null } {
  const n = s.episodes;
  return {
    successRate: n ? even(s.solved / n) : 0,
    meanReward: n ? even(s.rewardSum / n) : 0,
    meanTurns: n ? even(s.turnSum / n) : 0,
    errorRate: s.errorEpisodes ? even(s.errorShareSum / s.errorEpisodes) : null,
  };
}

/**
 * A mean to 12 significant digits: the stores add a column's floats in their own order (SQLite and
 * PostgreSQL differed in the last bit of an error rate), and the same episodes must give the same figure.
 */
function even(x: number): number {
  return Number(x.toPrecision(12));
}

/**
 * Computes the paper's statistics over the stored episodes matching `filters`, grouped by
 * `groupBy` (none: one group of all). This is what `icstudio stats` prints, the runs page and
 * the eval summary show, and what the HTTP API returns.
 */
export async function computeStats({
  filters = {},
  groupBy = DEFAULT_GROUP_BY,
}: {
  filters?: EpisodeFilters;
  groupBy?: StatsDimension[];
} = {}): Promise<StatsResult> {
  const rows = await aggregateEpisodeStats({ filters, groupBy });
  const groups = rows.map((r): StatsGroup => {
    const successAtK: number[] = [];
    let cum = 0;
    for (let k = 1; k <= r.maxTurnLimit; k++) {
      cum += r.solvedAt.get(k) ?? 0;
      successAtK.push(cum / r.episodes);
    }
    return {
      key: r.key,
      episodes: r.episodes,
      solved: r.solved,
      ...paperMeasures(r),
      successAtK,
    };
  });
  const cmp = (a: unknown, b: unknown) => String(a ?? "").localeCompare(String(b ?? ""));
  groups.sort((a, b) => {
    for (const d of groupBy) {
      const c = cmp(a.key[d], b.key[d]);
      if (c) return c;
    }
    return 0;
  });
  return { groups };
}
