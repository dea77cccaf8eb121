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

/** Groups the page's table and the API list (the CSV has every one). */
export const MAX_GROUPS_SHOWN = 100;
/** Groups drawn as lines of the success-within-k chart. */
export const MAX_CHART_GROUPS = 12;
/** Points of the success-within-k chart at most (the CSV has every k). */
export const MAX_K_POINTS = 120;

/**
 * The k values drawn for a success-within-k curve: every k up to 50, then only where a curve
 * steps (k - 1 and k, so a line between points keeps the step's shape) and the last k; thinned
 * evenly past MAX_K_POINTS. A 2,000-turn limit gave 2,000 rows × every group, most of the
 * stats page's megabyte (issue 26); the curve is flat between steps, so nothing is lost.
 */
export function chartKs(curves: number[][], maxK: number): number[] {
  const ks = new Set<number>();
  for (let k = 1; k <= Math.min(maxK, 50); k++) ks.add(k);
  for (const c of curves) for (let i = 1; i < c.length; i++) if (c[i] !== c[i - 1]) ks.add(i).add(i + 1);
  if (maxK > 0) ks.add(maxK);
  let out = [...ks].filter((k) => k >= 1 && k <= maxK).sort((a, b) => a - b);
  if (out.length > MAX_K_POINTS) {
    const step = out.length / (MAX_K_POINTS - 1);
    out = [...new Set([...Array.from({ length: MAX_K_POINTS - 1 }, (_, i) => out[Math.floor(i * step)]!), out[out.length - 1]!])];
  }
  return out;
}

/**
 * Aggregates of the episodes matching `filters`, grouped by `groupBy` where it applies: sums from
 * the store, never its rows. What a page draws is bounded whatever the store holds: the first
 * MAX_GROUPS_SHOWN groups, MAX_CHART_GROUPS curves of at most MAX_K_POINTS points. `full` (the
 * CSV) keeps every group and every k.
 */
export async function computeViewerStats({
  filters,
  groupBy,
  full = false,
}: {
  filters: EpisodeFilters;
  groupBy: StatsDimension[];
  full?: boolean;
}): Promise<ViewerStats> {
  const { invalidMin: _i, ...storeFilters } = filters;
  const stats = await computeStats({ filters: storeFilters, groupBy });
  const label = (key: Record<string, unknown>) => groupBy.map((d) => String(key[d] ?? "–")).join(" · ") || "all";
  const all = stats.groups.map((g) => ({
    group: label(g.key),
    episodes: g.episodes,
    solved: g.solved,
    successRate: g.successRate,
    meanReward: g.meanReward,
    meanTurns: g.meanTurns,
    errorRate: g.errorRate,
  }));
  const charted = full ? stats.groups : stats.groups.slice(0, MAX_CHART_GROUPS);
  const maxK = Math.max(0, ...charted.map((g) => g.successAtK.length));
  const at = (g: (typeof charted)[number], k: number) => g.successAtK[Math.min(k, g.successAtK.length) - 1] ?? 0;
  const ks = full
    ? Array.from({ length: maxK }, (_, i) => i + 1)
    : chartKs(
        charted.map((g) => g.successAtK),
        maxK,
      );
  const successAtK = ks.map((k) => {
    const row: { k: number; [group: string]: number } = { k };
    for (const g of charted) row[label(g.key)] = at(g, k);
    return row;
  });
  const agg = await aggregateViewerEpisodes({ filters });
  return {
    groupBy,
    success: full ? all : all.slice(0, MAX_GROUPS_SHOWN),
    groupsTotal: all.length,
    successAtK,
    groups: all.map((s) => s.group).slice(0, MAX_CHART_GROUPS),
    ...agg,
  };
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
