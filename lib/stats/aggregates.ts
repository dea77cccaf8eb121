import "server-only";
import { whereOf, type EpisodeFilters } from "@/lib/db/episode-filters";
import { withSql, type Sql } from "@/lib/db/sql";
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

/** Aggregates for a filtered set that the paper's measures (measures.ts) do not cover. */
export interface ViewerAggregates {
  /** Ten reward bins [0, 0.1), ..., [0.9, 1.0]; plus episodes with no reward. */
  rewardHistogram: { bin: string; episodes: number }[];
  /** Per turn position (1-based): turns with a known outcome and how many were invalid. */
  invalidByTurn: { turn: number; checked: number; invalid: number; rate: number }[];
  /** Accepted tags over the filtered set. */
  tags: { tag: string; episodes: number }[];
}

/** The filtered set's FROM and WHERE (lib/db/episode-filters.ts whereOf) on one connection. */
type FilteredSet = ReturnType<typeof whereOf>;

/** The filtered episodes in ten reward bins (a reward of 1.0 in the last), and a "none" bin when some have no reward. */
async function rewardHistogram(sql: Sql, { cte, from, sql: where, params }: FilteredSet): Promise<ViewerAggregates["rewardHistogram"]> {
  const bin = sql.dialect.trunc(`e."reward" * 10`);
  const hist = await sql.all<{ b: number; n: number }>(
    `${cte} SELECT CASE WHEN e."reward" IS NULL THEN -1 WHEN ${bin} > 9 THEN 9 ELSE ${bin} END AS b, COUNT(*) AS n FROM ${from} ${where} GROUP BY 1`,
    params,
  );
  const bins = Array.from({ length: 10 }, (_, i) => ({ bin: `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`, episodes: 0 }));
  let none = 0;
  for (const h of hist) {
    if (h.b < 0) none = h.n;
    else bins[Math.max(0, h.b)].episodes += h.n;
  }
  return none ? [...bins, { bin: "none", episodes: none }] : bins;
}

/** The invalid-action rate at each turn position (the first 100) over the filtered episodes' turns whose outcome is known. */
async function invalidByTurn(sql: Sql, { cte, from, sql: where, params }: FilteredSet): Promise<ViewerAggregates["invalidByTurn"]> {
  const inv = await sql.all<{ turn: number; checked: number; invalid: number | null }>(
    `${cte} SELECT t."index" + 1 AS turn, COUNT(t."ok") AS checked, SUM(CASE WHEN NOT t."ok" THEN 1 ELSE 0 END) AS invalid FROM "Turn" t
       WHERE t."episodeId" IN (SELECT e."id" FROM ${from} ${where}) GROUP BY t."index" ORDER BY t."index" LIMIT 100`,
    params,
  );
  return inv.map((r) => ({ turn: r.turn, checked: r.checked, invalid: r.invalid ?? 0, rate: r.checked ? (r.invalid ?? 0) / r.checked : 0 }));
}

/** The 30 tags people accepted on the most of the filtered episodes, with how many each. */
async function acceptedTags(sql: Sql, { cte, from, sql: where, params }: FilteredSet): Promise<ViewerAggregates["tags"]> {
  return sql.all<{ tag: string; episodes: number }>(
    `${cte} SELECT a."tag" AS tag, COUNT(DISTINCT a."episodeId") AS episodes FROM "Annotation" a
       WHERE a."kind" = 'tag' AND a."status" = 'accepted' AND a."source" = 'person' AND a."episodeId" IN (SELECT e."id" FROM ${from} ${where})
       GROUP BY a."tag" ORDER BY episodes DESC, a."tag" LIMIT 30`,
    params,
  );
}

/** Reward histogram, invalid-action rate by turn and tag counts over the episodes matching `filters`. */
export async function aggregateViewerEpisodes({ filters = {} }: { filters?: EpisodeFilters }): Promise<ViewerAggregates> {
  return withSql(async (sql) => {
    const set = whereOf(filters, sql.dialect);
    return { rewardHistogram: await rewardHistogram(sql, set), invalidByTurn: await invalidByTurn(sql, set), tags: await acceptedTags(sql, set) };
  });
}
