import "server-only";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { aggregateEpisodeStats } from "@/lib/db/stats";
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
  const dims = text.split(",").map((s) => s.trim()).filter(Boolean);
  for (const d of dims) if (!(d in STATS_DIMENSIONS)) throw new BadInputError(`unknown dimension ${JSON.stringify(d)}; one of ${Object.keys(STATS_DIMENSIONS).join(", ")}`, "--group-by");
  return [...new Set(dims)] as StatsDimension[];
}

/**
 * Computes the paper's statistics over the stored episodes matching `filters`, grouped by
 * `groupBy`. This is what `icstudio stats` prints and what the HTTP API returns.
 */
export async function computeStats({ filters = {}, groupBy = DEFAULT_GROUP_BY }: { filters?: EpisodeFilters; groupBy?: StatsDimension[] } = {}): Promise<StatsResult> {
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
      successRate: r.solved / r.episodes,
      meanReward: r.rewardSum / r.episodes,
      meanTurns: r.turnSum / r.episodes,
      errorRate: r.errorEpisodes ? r.errorShareSum / r.errorEpisodes : null,
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
