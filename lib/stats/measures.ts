import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "@/lib/db/episode-filters";
import { FINISHED_STATUSES } from "@/lib/db/episode-status";
import { withSql } from "@/lib/db/sql";
import { STATS_DIMENSIONS, type StatsDimension } from "@/lib/db/stats-dimensions";
import { BadInputError } from "@/lib/errors";

/**
 * The paper's measures, each stated once in this file: what one episode adds to its group
 * (EPISODE_TERMS, SQL over its Episode row), the sums of a group (sumEpisodeMeasures) and the
 * means taken over them (paperMeasures). The eval summary, the runs page, `icstudio stats`, the
 * stats page and its CSV all read them from computeStats.
 *
 * Why SQL aggregates and not functions over episode rows: the stats page measures stores of
 * hundreds of thousands of episodes in one pass over a covering index (issue 26); no row per
 * episode leaves the store. Why here and not in lib/db: lib/stats reads the store through lib/db
 * (the connection, its dialect, the filters), so lib/db cannot call back into lib/stats without a
 * cycle between the folders, and the definition of a measure belongs beside its mean.
 */

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

/**
 * An episode's turns as InterCode counts them: summary.turns_taken (which leaves out ReAct's forced
 * final submit) where its loop or log says, else its stored turns. The mean turns and the runs
 * page's per-task column both count this way.
 */
export function interCodeTurns(e: { turnsTaken: number | null; turnCount: number }): number {
  return e.turnsTaken ?? e.turnCount;
}

/** What one episode adds to its group's sums, as SQL over its row `e`. */
const EPISODE_TERMS = {
  /** Solved: its reward reached 1.0 (the store keeps that as `success`). */
  solved: `CASE WHEN e."success" THEN 1 ELSE 0 END`,
  reward: `COALESCE(e."reward", 0)`,
  /** Turns as InterCode counted them: interCodeTurns, in SQL. */
  turns: `COALESCE(e."turnsTaken", e."turnCount")`,
  /** The share of its actions that failed to execute; NULL when its log does not say whether they did. */
  errorShare: `CASE WHEN e."checkedCount" > 0 THEN CAST(e."invalidCount" AS DOUBLE PRECISION) / e."checkedCount" END`,
  /** 1 when it says whether its actions executed (it counts in the error rate's mean). */
  saysErrors: `CASE WHEN e."checkedCount" > 0 THEN 1 ELSE 0 END`,
} as const;

/** The sums of one group of episodes, straight from SQL. */
export interface MeasureSums {
  episodes: number;
  solved: number;
  rewardSum: number;
  turnSum: number;
  /** Sum of the error shares of the episodes that say, and how many such episodes. */
  errorShareSum: number;
  errorEpisodes: number;
}

interface GroupSums extends MeasureSums {
  key: Record<string, string | number | null>;
  maxTurnLimit: number;
  /** solvedAtTurn → how many episodes were first solved at that turn. */
  solvedAt: Map<number, number>;
}

/**
 * Sums the measures' terms per group in one pass. Unfinished episodes (running, interrupted) are
 * left out unless `filters.status` asks for them.
 */
async function sumEpisodeMeasures({ filters = {}, groupBy }: { filters?: EpisodeFilters; groupBy: StatsDimension[] }): Promise<GroupSums[]> {
  const f: EpisodeFilters = { ...filters };
  if (f.status === undefined) f.status = [...FINISHED_STATUSES];
  const cols = groupBy.map((d) => `e."${STATS_DIMENSIONS[d]}"`);
  const sel = cols.map((c, i) => `${c} AS g${i}`).join(", ");
  // Grouped by the requested columns and the turn at which each episode was solved (successAtK
  // needs that distribution). With no filter beyond the default status, SQLite scans the covering
  // statistics index (every column read here, a fraction of the table's bytes, and in the default
  // grouping's order) rather than the table or a status index walk.
  const onlyStatus = Object.keys(filters).every((k) => k === "status" || (filters as Record<string, unknown>)[k] === undefined);
  const groupCols = [...cols, `e."solvedAtTurn"`];
  const t = EPISODE_TERMS;
  const rows = await withSql((sql) => {
    const { sql: where, params } = buildEpisodeWhere(f, sql.dialect);
    const from = `"Episode" e${onlyStatus ? sql.dialect.indexedBy("Episode_stats_idx") : ""}`;
    return sql.all<Record<string, number | string | null>>(
      `SELECT ${sel ? sel + "," : ""} e."solvedAtTurn" AS k, COUNT(*) AS n, SUM(${t.solved}) AS solved, SUM(${t.reward}) AS "rewardSum",
              SUM(${t.turns}) AS "turnSum", SUM(${t.errorShare}) AS "errSum", SUM(${t.saysErrors}) AS "errN", MAX(e."turnLimit") AS "maxLimit"
       FROM ${from} ${where} GROUP BY ${groupCols.join(", ")}`,
      params,
    );
  });
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(groupBy.map((_, i) => r[`g${i}`] ?? null));
  const out = new Map<string, GroupSums>();
  for (const r of rows) {
    const id = keyOf(r);
    let g = out.get(id);
    if (!g) {
      const key = Object.fromEntries(groupBy.map((d, i) => [d, (r[`g${i}`] ?? null) as string | number | null]));
      g = { key, episodes: 0, solved: 0, rewardSum: 0, turnSum: 0, errorShareSum: 0, errorEpisodes: 0, maxTurnLimit: 0, solvedAt: new Map() };
      out.set(id, g);
    }
    g.episodes += Number(r.n);
    g.solved += Number(r.solved ?? 0);
    g.rewardSum += Number(r.rewardSum ?? 0);
    g.turnSum += Number(r.turnSum ?? 0);
    g.errorShareSum += Number(r.errSum ?? 0);
    g.errorEpisodes += Number(r.errN ?? 0);
    g.maxTurnLimit = Math.max(g.maxTurnLimit, Number(r.maxLimit ?? 0));
    if (r.k !== null && Number(r.solved) > 0) g.solvedAt.set(Number(r.k), (g.solvedAt.get(Number(r.k)) ?? 0) + Number(r.solved));
  }
  return [...out.values()];
}

/**
 * The paper's measures of a group of episodes from its sums:
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
  const rows = await sumEpisodeMeasures({ filters, groupBy });
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
