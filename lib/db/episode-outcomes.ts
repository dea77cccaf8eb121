import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "./episode-filters";
import { rowParser } from "./rows";
import { withSql } from "./sql";
import { FINISHED_STATUSES } from "./episode-status";

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
