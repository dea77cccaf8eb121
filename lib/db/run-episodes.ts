import "server-only";
import { withPrisma } from "./client";
import { z } from "zod";
import { rowParser } from "./rows";
import { withSql } from "./sql";
import { withWriteLock } from "./lock";
import { FINISHED_STATUSES } from "./episode-status";

/** The finished statuses as a SQL list (constants of the code, not input). */
const FINISHED_SQL = FINISHED_STATUSES.map((s) => `'${s}'`).join(",");

/**
 * Queries the agent's batch runs need beyond lib/db/runs.ts and lib/db/episodes.ts
 * (added by the agent work; one function per query).
 */

/** Marks one running episode interrupted (a stopped agent, Ctrl+C in a batch run). Returns whether it was running. */
export async function markEpisodeInterruptedById({ id, reason }: { id: string; reason?: string }): Promise<boolean> {
  return withWriteLock(() =>
    withPrisma(async (prisma) => {
      const endedAt = new Date();
      const r = await prisma.episode.updateMany({ where: { id, status: "running" }, data: { status: "interrupted", errorReason: reason ?? null, endedAt } });
      return r.count > 0;
    }),
  );
}

/** Marks a run's episodes still marked running (left by a crash) interrupted. Returns how many. */
export async function markRunEpisodesInterrupted({ runId }: { runId: string }): Promise<number> {
  return withWriteLock(() =>
    withPrisma(async (prisma) => (await prisma.episode.updateMany({ where: { runId, status: "running" }, data: { status: "interrupted" } })).count),
  );
}

/**
 * Marks the episodes of one task of a run still marked running interrupted, with a reason: what a
 * queue worker does before it runs a task whose previous worker lost the job. Returns how many.
 */
export async function markRunTaskEpisodesInterrupted({ runId, taskId, reason }: { runId: string; taskId: string; reason: string }): Promise<number> {
  return withWriteLock(() =>
    withPrisma(async (prisma) => {
      const r = await prisma.episode.updateMany({
        where: { runId, taskId, status: "running" },
        data: { status: "interrupted", errorReason: reason, endedAt: new Date() },
      });
      return r.count;
    }),
  );
}

/** A run's episodes with their outcome, oldest first (which tasks are finished; the measures are lib/stats's). */
export async function listRunEpisodeOutcomes({
  runId,
}: {
  runId: string;
}): Promise<{ id: string; taskId: string; status: string; success: boolean; reward: number | null }[]> {
  return withSql(async (sql) =>
    outcomeRow.all(await sql.all(`SELECT "id", "taskId", "status", "success", "reward" FROM "Episode" WHERE "runId" = ? ORDER BY "startedAt", "id"`, [runId])),
  );
}

const outcomeRow = rowParser("Episode", ["id", "taskId", "status", "success", "reward"]);

/** Overwrites a run's counters (after a resume the counts are recomputed from its episodes). */
export async function setRunCounts({
  id,
  total,
  done,
  solved,
  errors,
}: {
  id: string;
  total?: number;
  done?: number;
  solved?: number;
  errors?: number;
}): Promise<void> {
  await withWriteLock(() => withPrisma((prisma) => prisma.run.update({ where: { id }, data: { total, done, solved, errors } })));
}

/** One episode of a run as the run page lists it (times in ms since the epoch). */
export interface RunEpisodeRow {
  id: string;
  taskId: string;
  taskIndex: number | null;
  status: string;
  reward: number | null;
  success: boolean;
  turnCount: number;
  /** The turns its loop counted (InterCode's turns_taken), when it says. */
  turnsTaken: number | null;
  invalidCount: number;
  solvedAtTurn: number | null;
  hardness: string | null;
  db: string | null;
  errorReason: string | null;
  startedAt: number;
  endedAt: number | null;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

const runEpisodeRow = rowParser(
  "Episode",
  [
    "id",
    "taskId",
    "taskIndex",
    "status",
    "reward",
    "success",
    "turnCount",
    "turnsTaken",
    "invalidCount",
    "solvedAtTurn",
    "hardness",
    "db",
    "errorReason",
    "startedAt",
    "endedAt",
  ],
  { tokensIn: z.number(), tokensOut: z.number(), costUsd: z.number() },
);

/** A run's episodes, oldest first, with their token and cost sums (one query). */
export async function listRunEpisodeRows({ runId }: { runId: string }): Promise<RunEpisodeRow[]> {
  return withSql(async (sql) =>
    runEpisodeRow.all(
      await sql.all(
        `SELECT e."id", e."taskId", e."taskIndex", e."status", e."reward", e."success", e."turnCount", e."turnsTaken", e."invalidCount", e."solvedAtTurn",
                e."hardness", e."db", e."errorReason", e."startedAt", e."endedAt",
                COALESCE(SUM(t."tokensIn"), 0) AS "tokensIn", COALESCE(SUM(t."tokensOut"), 0) AS "tokensOut", COALESCE(SUM(t."costUsd"), 0) AS "costUsd"
         FROM "Episode" e LEFT JOIN "Turn" t ON t."episodeId" = e."id"
         WHERE e."runId" = ? GROUP BY e."id" ORDER BY e."startedAt", e."id"`,
        [runId],
      ),
    ),
  );
}

/** Per run: tasks finished (submitted, abandoned or error), solved, and episodes running (one query). */
export async function countRunEpisodesByRun({ runIds }: { runIds: string[] }): Promise<Map<string, { done: number; solved: number; running: number }>> {
  if (!runIds.length) return new Map();
  return withSql(async (sql) => {
    const rows = await sql.all<{ runId: string; done: number; solved: number; running: number }>(
      `SELECT "runId", SUM(CASE WHEN "status" IN (${FINISHED_SQL}) THEN 1 ELSE 0 END) AS done, SUM(CASE WHEN "success" THEN 1 ELSE 0 END) AS solved,
              SUM(CASE WHEN "status" = 'running' THEN 1 ELSE 0 END) AS running
       FROM "Episode" WHERE "runId" ${sql.dialect.inList("?")} GROUP BY "runId"`,
      [sql.dialect.listValue(runIds)],
    );
    return new Map(rows.map((r) => [r.runId, { done: Number(r.done), solved: Number(r.solved), running: Number(r.running) }]));
  });
}
