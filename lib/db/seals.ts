import "server-only";
import { cachedStatement } from "./episode-filters";
import { withRaw } from "./sqlite";

/** A task as the store names it. */
export interface TaskKey {
  environment: string;
  dataset: string;
  taskId: string;
}

/** The statuses of a baseline episode that still seals its task (unsubmitted, resumable). */
const OPEN_STATUSES = `('running', 'interrupted')`;

/** The oldest unsubmitted baseline episode on `key`, other than `exceptId`, or null. */
export function findOpenBaselineEpisode(key: TaskKey, exceptId?: string): { id: string; annotator: string | null } | null {
  return withRaw(
    (db) =>
      (cachedStatement(
        db,
        `SELECT "id", "annotator" FROM "Episode" WHERE "environment" = ? AND "dataset" = ? AND "taskId" = ? AND "mode" = 'baseline' AND "status" IN ${OPEN_STATUSES} AND "id" <> ? ORDER BY "startedAt" LIMIT 1`,
      ).get(key.environment, key.dataset, key.taskId, exceptId ?? "") as { id: string; annotator: string | null } | undefined) ?? null,
  );
}

/** Every task that has an unsubmitted baseline episode. */
export function listTasksWithOpenBaselineEpisodes(): TaskKey[] {
  return withRaw(
    (db) =>
      cachedStatement(db, `SELECT DISTINCT "environment", "dataset", "taskId" FROM "Episode" WHERE "mode" = 'baseline' AND "status" IN ${OPEN_STATUSES}`).all() as TaskKey[],
  );
}
