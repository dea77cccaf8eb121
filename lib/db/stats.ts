import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "./episode-filters";
import { rowParser } from "./rows";
import { withSql } from "./sql";
import { STATS_DIMENSIONS, type StatsDimension } from "./stats-dimensions";
import { FINISHED_STATUSES } from "./episode-status";

/** Aggregates of one group, straight from SQL. */
export interface StatsGroupRow {
  key: Record<string, string | number | null>;
  episodes: number;
  solved: number;
  rewardSum: number;
  /** Sum of turns as the logs counted them (turnsTaken), else of stored turns. */
  turnSum: number;
  /** Sum over episodes with known outcomes of (invalid actions / checked actions), and how many such episodes. */
  errorShareSum: number;
  errorEpisodes: number;
  maxTurnLimit: number;
  /** solvedAtTurn → how many episodes were first solved at that turn. */
  solvedAt: Map<number, number>;
}

/**
 * Aggregates episodes per group in one pass (no per-episode rows leave SQLite).
 * Unfinished episodes (running, interrupted) are left out unless `filters.status` asks for them.
 */
export async function aggregateEpisodeStats({ filters = {}, groupBy }: { filters?: EpisodeFilters; groupBy: StatsDimension[] }): Promise<StatsGroupRow[]> {
  const f: EpisodeFilters = { ...filters };
  if (f.status === undefined) f.status = [...FINISHED_STATUSES];
  const cols = groupBy.map((d) => `e."${STATS_DIMENSIONS[d]}"`);
  const sel = cols.map((c, i) => `${c} AS g${i}`).join(", ");
  // One pass, grouped by the requested columns and the turn at which each episode was solved
  // (successAtK needs that distribution). With no filter beyond the default status, SQLite scans
  // the covering statistics index (every column read here, a fraction of the table's bytes, and in
  // the default grouping's order) rather than the table or a status index walk.
  const onlyStatus = Object.keys(filters).every((k) => k === "status" || (filters as Record<string, unknown>)[k] === undefined);
  const groupCols = [...cols, `e."solvedAtTurn"`];
  const rows = await withSql((sql) => {
    const { sql: where, params } = buildEpisodeWhere(f, sql.dialect);
    const from = `"Episode" e${onlyStatus ? sql.dialect.indexedBy("Episode_stats_idx") : ""}`;
    return sql.all<Record<string, number | string | null>>(
      `SELECT ${sel ? sel + "," : ""} e."solvedAtTurn" AS k, COUNT(*) AS n, SUM(CASE WHEN e."success" THEN 1 ELSE 0 END) AS solved, SUM(COALESCE(e."reward", 0)) AS "rewardSum",
              SUM(COALESCE(e."turnsTaken", e."turnCount")) AS "turnSum",
              SUM(CASE WHEN e."checkedCount" > 0 THEN CAST(e."invalidCount" AS DOUBLE PRECISION) / e."checkedCount" END) AS "errSum",
              SUM(CASE WHEN e."checkedCount" > 0 THEN 1 ELSE 0 END) AS "errN", MAX(e."turnLimit") AS "maxLimit"
       FROM ${from} ${where} GROUP BY ${groupCols.join(", ")}`,
      params,
    );
  });
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(groupBy.map((_, i) => r[`g${i}`] ?? null));
  const out = new Map<string, StatsGroupRow>();
  for (const r of rows) {
    const id = keyOf(r);
    let g = out.get(id);
    if (!g) {
      g = {
        key: Object.fromEntries(groupBy.map((d, i) => [d, (r[`g${i}`] ?? null) as string | number | null])),
        episodes: 0,
        solved: 0,
        rewardSum: 0,
        turnSum: 0,
        errorShareSum: 0,
        errorEpisodes: 0,
        maxTurnLimit: 0,
        solvedAt: new Map(),
      };
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

const outcomeRow = rowParser("Episode", ["id", "environment", "dataset", "taskId", "status", "reward", "success", "hardness", "db"]);
export type EpisodeOutcomeRow = ReturnType<typeof outcomeRow.one>;

/**
 * The finished episodes (submitted, abandoned, error) a filter matches, oldest first, with what a
 * paired comparison needs: the task, the outcome and the task's group (hardness, file system).
 */
export async function listEpisodeOutcomesByFilters({ filters }: { filters: EpisodeFilters }): Promise<EpisodeOutcomeRow[]> {
  const f: EpisodeFilters = { ...filters };
  if (f.status === undefined) f.status = [...FINISHED_STATUSES];
  return withSql(async (sql) => {
    const { sql: where, params } = buildEpisodeWhere(f, sql.dialect);
    return outcomeRow.all(
      await sql.all(
        `SELECT e."id", e."environment", e."dataset", e."taskId", e."status", e."reward", e."success", e."hardness", e."db"
         FROM "Episode" e ${where} ORDER BY e."startedAt", e."id"`,
        params,
      ),
    );
  });
}
