import "server-only";
import { withSql } from "./sql";

/** A task as the store names it. */
export interface TaskKey {
  environment: string;
  dataset: string;
  taskId: string;
}

/** The statuses of a baseline episode that still seals its task (unsubmitted, resumable). */
const OPEN_STATUSES = `('running', 'interrupted')`;

/** The oldest unsubmitted baseline episode on `key`, other than `exceptId`, or null. */
export async function findOpenBaselineEpisode(key: TaskKey, exceptId?: string): Promise<{ id: string; annotator: string | null } | null> {
  return withSql(
    async (sql) =>
      (await sql.get<{ id: string; annotator: string | null }>(
        `SELECT "id", "annotator" FROM "Episode" WHERE "environment" = ? AND "dataset" = ? AND "taskId" = ? AND "mode" = 'baseline' AND "status" IN ${OPEN_STATUSES} AND "id" <> ? ORDER BY "startedAt" LIMIT 1`,
        [key.environment, key.dataset, key.taskId, exceptId ?? ""],
      )) ?? null,
  );
}

/** Every task that has an unsubmitted baseline episode. */
export async function listTasksWithOpenBaselineEpisodes(): Promise<TaskKey[]> {
  return withSql((sql) =>
    sql.all<TaskKey>(`SELECT DISTINCT "environment", "dataset", "taskId" FROM "Episode" WHERE "mode" = 'baseline' AND "status" IN ${OPEN_STATUSES}`),
  );
}
