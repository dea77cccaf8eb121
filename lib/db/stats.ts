import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "./episode-filters";
import { withRaw } from "./sqlite";

/** Columns the statistics can group by, by their public name. */
export const STATS_DIMENSIONS = {
  env: "environment",
  dataset: "dataset",
  model: "model",
  policy: "policy",
  hardness: "hardness",
  actor: "playerKind",
  annotator: "annotator",
  turnLimit: "turnLimit",
  run: "runId",
  status: "status",
  task: "taskId",
} as const;
export type StatsDimension = keyof typeof STATS_DIMENSIONS;

/** Aggregates of one group, straight from SQL. */
export interface StatsGroupRow {
  key: Record<string, string | number | null>;
  episodes: number;
  solved: number;
  rewardSum: number;
  turnSum: number;
  /** Sum over episodes with known outcomes of (invalid actions / checked actions), and how many such episodes. */
  errorShareSum: number;
  errorEpisodes: number;
  maxTurnLimit: number;
  /** solvedAtTurn → how many episodes were first solved at that turn. */
  solvedAt: Map<number, number>;
}

/**
 * Aggregates episodes per group in two indexed passes (no per-episode rows leave SQLite).
 * Unfinished episodes (running, interrupted) are left out unless `filters.status` asks for them.
 */
export function aggregateEpisodeStats({ filters = {}, groupBy }: { filters?: EpisodeFilters; groupBy: StatsDimension[] }): StatsGroupRow[] {
  const f: EpisodeFilters = { ...filters };
  if (f.status === undefined) f.status = ["submitted", "abandoned", "error"];
  const { sql: where, params } = buildEpisodeWhere(f);
  const cols = groupBy.map((d) => `e."${STATS_DIMENSIONS[d]}"`);
  const sel = cols.map((c, i) => `${c} AS g${i}`).join(", ");
  const group = cols.length ? `GROUP BY ${cols.join(", ")}` : "";
  return withRaw((db) => {
    const main = db
      .prepare(
        `SELECT ${sel ? sel + "," : ""} COUNT(*) AS n, SUM(e."success") AS solved, SUM(COALESCE(e."reward", 0)) AS rewardSum,
                SUM(e."turnCount") AS turnSum,
                SUM(CASE WHEN e."checkedCount" > 0 THEN CAST(e."invalidCount" AS REAL) / e."checkedCount" END) AS errSum,
                SUM(e."checkedCount" > 0) AS errN, MAX(e."turnLimit") AS maxLimit
         FROM "Episode" e ${where} ${group}`,
      )
      .all(params) as Array<Record<string, number | string | null>>;
    const solvedRows = db
      .prepare(
        `SELECT ${sel ? sel + "," : ""} e."solvedAtTurn" AS k, COUNT(*) AS n FROM "Episode" e
         ${where ? where + ' AND e."success" = 1' : 'WHERE e."success" = 1'} ${group ? group + ', e."solvedAtTurn"' : 'GROUP BY e."solvedAtTurn"'}`,
      )
      .all(params) as Array<Record<string, number | string | null>>;
    const keyOf = (r: Record<string, unknown>) => JSON.stringify(groupBy.map((_, i) => r[`g${i}`] ?? null));
    const out = new Map<string, StatsGroupRow>();
    for (const r of main) {
      if (Number(r.n) === 0) continue;
      out.set(keyOf(r), {
        key: Object.fromEntries(groupBy.map((d, i) => [d, (r[`g${i}`] ?? null) as string | number | null])),
        episodes: Number(r.n),
        solved: Number(r.solved ?? 0),
        rewardSum: Number(r.rewardSum ?? 0),
        turnSum: Number(r.turnSum ?? 0),
        errorShareSum: Number(r.errSum ?? 0),
        errorEpisodes: Number(r.errN ?? 0),
        maxTurnLimit: Number(r.maxLimit ?? 0),
        solvedAt: new Map(),
      });
    }
    for (const r of solvedRows) {
      const g = out.get(keyOf(r));
      if (g && r.k !== null) g.solvedAt.set(Number(r.k), Number(r.n));
    }
    return [...out.values()];
  });
}
