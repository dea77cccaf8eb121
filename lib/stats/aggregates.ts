import "server-only";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { aggregateViewerEpisodes } from "@/lib/db/viewer-queries";
import type { StatsDimension } from "@/lib/db/stats-dimensions";
import { computeStats } from "@/lib/stats/measures";
import type { ViewerStats } from "@/lib/viewer/view-types";
import { toCsv } from "@/lib/viewer/csv";

/** The charts of the failure-analysis view, each with its CSV form. */
export const CHARTS = ["success", "success-at-k", "reward", "invalid", "tags"] as const;
export type ChartName = (typeof CHARTS)[number];

/** Aggregates of the episodes matching `filters`, grouped by `groupBy` where it applies. */
export async function computeViewerStats({ filters, groupBy }: { filters: EpisodeFilters; groupBy: StatsDimension[] }): Promise<ViewerStats> {
  const { invalidMin: _i, ...storeFilters } = filters;
  const stats = await computeStats({ filters: storeFilters, groupBy });
  const label = (key: Record<string, unknown>) => groupBy.map((d) => String(key[d] ?? "–")).join(" · ") || "all";
  const success = stats.groups.map((g) => ({
    group: label(g.key),
    episodes: g.episodes,
    solved: g.solved,
    successRate: g.successRate,
    meanReward: g.meanReward,
    meanTurns: g.meanTurns,
    errorRate: g.errorRate,
  }));
  const maxK = Math.max(0, ...stats.groups.map((g) => g.successAtK.length));
  const successAtK = Array.from({ length: maxK }, (_, i) => {
    const row: { k: number; [group: string]: number } = { k: i + 1 };
    for (const g of stats.groups) row[label(g.key)] = g.successAtK[Math.min(i, g.successAtK.length - 1)] ?? 0;
    return row;
  });
  const agg = await aggregateViewerEpisodes({ filters });
  return { groupBy, success, successAtK, groups: success.map((s) => s.group).slice(0, 12), ...agg };
}

/** One chart's data as CSV. */
export function chartCsv(stats: ViewerStats, chart: ChartName): string {
  switch (chart) {
    case "success":
      return toCsv(["group", "episodes", "solved", "successRate", "meanReward", "meanTurns", "errorRate"], stats.success);
    case "success-at-k":
      return toCsv(["k", ...stats.success.map((s) => s.group)], stats.successAtK);
    case "reward":
      return toCsv(["bin", "episodes"], stats.rewardHistogram);
    case "invalid":
      return toCsv(["turn", "checked", "invalid", "rate"], stats.invalidByTurn);
    case "tags":
      return toCsv(["tag", "episodes"], stats.tags);
  }
}
