import "server-only";
import { withSql } from "./sql";
import { whereOf, type EpisodeFilters } from "./episode-filters";
import { FINISHED_STATUSES } from "./episode-status";

/** The statuses of an episode that ended (an episode still running has not failed yet). */

/** A failing episode with one of its detector tags (or none: tag null), as the failure groups read it. */
export interface FailureTagRow {
  id: string;
  environment: string;
  dataset: string;
  taskId: string;
  model: string | null;
  policy: string | null;
  hardness: string | null;
  playerKind: string;
  annotator: string | null;
  reward: number | null;
  tag: string | null;
  turnIndex: number | null;
  text: string | null;
}

/**
 * Every episode matching `filters` that ended without success, once per detector tag it carries
 * (machine tags of source detector; `tag` null for an episode with none), in episode, turn and tag order.
 */
export async function listFailureTagsByFilters({ filters = {} }: { filters?: EpisodeFilters }): Promise<FailureTagRow[]> {
  return withSql(async (sql) => {
    const { cte, from, sql: where, params } = whereOf({ ...filters, success: false, status: filters.status ?? [...FINISHED_STATUSES] }, sql.dialect);
    const rows = await sql.all<FailureTagRow>(
      `${cte} SELECT e."id", e."environment", e."dataset", e."taskId", e."model", e."policy", e."hardness", e."playerKind", e."annotator", e."reward",
         a."tag", a."turnIndex", a."text"
       FROM ${from} LEFT JOIN "Annotation" a ON a."episodeId" = e."id" AND a."source" = 'detector' AND a."kind" = 'tag'
       ${where}
       ORDER BY e."id", a."tag", a."turnIndex"`,
      params,
    );
    return rows.map((r) => ({ ...r, reward: r.reward === null ? null : Number(r.reward) }));
  });
}

/** An ended episode's final answer, for task QA: what it submitted and what the gold gave. */
export interface FinalAnswerRow {
  id: string;
  environment: string;
  dataset: string;
  taskId: string;
  model: string | null;
  policy: string | null;
  playerKind: string;
  success: boolean;
  reward: number | null;
  gold: string | null;
  goldObservation: string | null;
  agentObservation: string | null;
  /** The last submit's action (its argument is the answer for CTF and Python), or null. */
  submitAction: string | null;
  submitTurn: number | null;
}

/** Submitted episodes matching `filters`, with their final answers, in task order. */
export async function listFinalAnswersByFilters({ filters = {} }: { filters?: EpisodeFilters }): Promise<FinalAnswerRow[]> {
  return withSql(async (sql) => {
    const { cte, from, sql: where, params } = whereOf({ ...filters, status: "submitted" }, sql.dialect);
    const rows = await sql.all<Omit<FinalAnswerRow, "success"> & { success: unknown }>(
      `${cte} SELECT e."id", e."environment", e."dataset", e."taskId", e."model", e."policy", e."playerKind", e."success", e."reward", e."gold",
         e."goldObservation", e."agentObservation", t."action" AS "submitAction", t."index" AS "submitTurn"
       FROM ${from} LEFT JOIN "Turn" t ON t."episodeId" = e."id" AND t."index" = e."turnCount" - 1
       ${where}
       ORDER BY e."environment", e."dataset", e."taskId", e."id"`,
      params,
    );
    return rows.map((r) => ({ ...r, success: r.success === true || r.success === 1, reward: r.reward === null ? null : Number(r.reward) }));
  });
}

/** An episode carrying one of some detector tags, as task QA reads it. */
export interface DetectorTagRow {
  id: string;
  environment: string;
  dataset: string;
  taskId: string;
  model: string | null;
  policy: string | null;
  success: boolean;
  tag: string;
  turnIndex: number | null;
  text: string | null;
}

/** Episodes matching `filters` that carry one of `tags` as a detector tag, once per tag and turn, in task order. */
export async function listDetectorTagsByFilters({ filters = {}, tags }: { filters?: EpisodeFilters; tags: readonly string[] }): Promise<DetectorTagRow[]> {
  if (!tags.length) return [];
  return withSql(async (sql) => {
    const { cte, from, sql: where, params } = whereOf(filters, sql.dialect);
    for (const [i, t] of tags.entries()) params[`tag${i}`] = t;
    const tagIn = tags.map((_, i) => `@tag${i}`).join(", ");
    const rows = await sql.all<Omit<DetectorTagRow, "success"> & { success: unknown }>(
      `${cte} SELECT e."id", e."environment", e."dataset", e."taskId", e."model", e."policy", e."success", a."tag", a."turnIndex", a."text"
       FROM ${from} JOIN "Annotation" a ON a."episodeId" = e."id" AND a."source" = 'detector' AND a."kind" = 'tag' AND a."tag" IN (${tagIn})
       ${where}
       ORDER BY e."environment", e."dataset", e."taskId", e."id", a."tag", a."turnIndex"`,
      params,
    );
    return rows.map((r) => ({ ...r, success: r.success === true || r.success === 1 }));
  });
}
