import "server-only";
import { ConflictError } from "@/lib/errors";
import { withPrisma } from "./client";
import type { Study } from "./generated/client";
import { columnsOf, recordParser, rowParser, selectAll } from "./rows";
import { withSql } from "./sql";

export type { Study } from "./generated/client";

const studyRecord = recordParser("Study", columnsOf("Study"));

/** Creates a human baseline study (its task list and conditions live in `config`). */
export async function createStudy({ name, config }: { name: string; config: unknown }): Promise<Study> {
  return withPrisma(async (prisma) => {
    try {
      return await prisma.study.create({ data: { name, config: JSON.stringify(config) } });
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") throw new ConflictError(`a study named ${JSON.stringify(name)} already exists`);
      throw err;
    }
  });
}

export async function getStudyById({ id }: { id: string }): Promise<Study | null> {
  return withSql(async (sql) => {
    const row = await sql.get(`SELECT ${selectAll("Study")} FROM "Study" WHERE "id" = ?`, [id]);
    return row ? studyRecord.one(row) : null;
  });
}

export async function listStudies(): Promise<Study[]> {
  return withSql(async (sql) => studyRecord.all(await sql.all(`SELECT ${selectAll("Study")} FROM "Study" ORDER BY "createdAt" DESC`)));
}

/** What a study's progress needs of one episode. */
export interface StudyEpisodeState {
  id: string;
  taskId: string;
  status: string;
  errorReason: string | null;
  startedAt: Date;
}

const select = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(", ");
const STATE_COLUMNS = ["id", "taskId", "status", "errorReason", "startedAt"] as const;
const studyEpisodeState = recordParser("Episode", STATE_COLUMNS);

/** An annotator's episodes in a study, oldest first (light rows: no text, no turns). */
export async function listStudyEpisodesByAnnotator({ studyId, annotator }: { studyId: string; annotator: string }): Promise<StudyEpisodeState[]> {
  return withSql(async (sql) =>
    studyEpisodeState.all(
      await sql.all(`SELECT ${select(STATE_COLUMNS)} FROM "Episode" WHERE "studyId" = ? AND "annotator" = ? ORDER BY "startedAt", "id"`, [studyId, annotator]),
    ),
  );
}

/** What a study's results need of one episode. */
export interface StudyEpisodeResult extends StudyEpisodeState {
  annotator: string | null;
  reward: number | null;
  success: boolean;
  durationMs: number | null;
  endedAt: Date | null;
}

const RESULT_COLUMNS = [...STATE_COLUMNS, "annotator", "reward", "success", "durationMs", "endedAt"] as const;
const studyEpisodeResult = recordParser("Episode", RESULT_COLUMNS);

/** Every episode of a study, oldest first (light rows: no text, no turns). */
export async function listStudyEpisodeResultsByStudy({ studyId }: { studyId: string }): Promise<StudyEpisodeResult[]> {
  return withSql(async (sql) =>
    studyEpisodeResult.all(await sql.all(`SELECT ${select(RESULT_COLUMNS)} FROM "Episode" WHERE "studyId" = ? ORDER BY "startedAt", "id"`, [studyId])),
  );
}

/** Closes a study (its seal lifts); returns whether it was open. */
export async function closeStudyById({ id }: { id: string }): Promise<boolean> {
  return withPrisma(async (prisma) => (await prisma.study.updateMany({ where: { id, closedAt: null }, data: { closedAt: new Date() } })).count > 0);
}

/** Logs the owner's look behind a study's seal. */
export async function createSealRevealRow({ studyId, what }: { studyId: string; what: string }): Promise<{ id: string; createdAt: Date }> {
  return withPrisma((prisma) => prisma.sealReveal.create({ data: { studyId, what }, select: { id: true, createdAt: true } }));
}

const sealReveal = recordParser("SealReveal", ["id", "what", "createdAt"]);

/** A study's reveals, newest first. */
export async function listSealRevealsByStudy({ studyId }: { studyId: string }): Promise<{ id: string; what: string; createdAt: Date }[]> {
  return withSql(async (sql) =>
    sealReveal.all(await sql.all(`SELECT "id", "what", "createdAt" FROM "SealReveal" WHERE "studyId" = ? ORDER BY "createdAt" DESC`, [studyId])),
  );
}

/** Adds active time to a study task's clock for an annotator (creating it); returns the new total. */
export async function addStudyTaskActiveMs({
  studyId,
  annotator,
  taskId,
  ms,
}: {
  studyId: string;
  annotator: string;
  taskId: string;
  ms: number;
}): Promise<number> {
  return withPrisma(async (prisma) => {
    const now = new Date();
    const row = await prisma.studyTaskClock.upsert({
      where: { studyId_annotator_taskId: { studyId, annotator, taskId } },
      create: { studyId, annotator, taskId, activeMs: ms, firstAt: now, lastAt: now },
      update: { activeMs: { increment: ms }, lastAt: now },
    });
    return row.activeMs;
  });
}

const taskClock = recordParser("StudyTaskClock", ["annotator", "taskId", "activeMs", "firstAt", "lastAt"]);

/** Every task clock of a study. */
export async function listStudyTaskClocksByStudy({
  studyId,
}: {
  studyId: string;
}): Promise<{ annotator: string; taskId: string; activeMs: number; firstAt: Date; lastAt: Date }[]> {
  return withSql(async (sql) =>
    taskClock.all(await sql.all(`SELECT "annotator", "taskId", "activeMs", "firstAt", "lastAt" FROM "StudyTaskClock" WHERE "studyId" = ?`, [studyId])),
  );
}

const clockActiveMs = rowParser("StudyTaskClock", ["activeMs"]);

/** One task clock, or null. */
export async function getStudyTaskClock({
  studyId,
  annotator,
  taskId,
}: {
  studyId: string;
  annotator: string;
  taskId: string;
}): Promise<{ activeMs: number } | null> {
  return withSql(async (sql) => {
    const row = await sql.get(`SELECT "activeMs" FROM "StudyTaskClock" WHERE "studyId" = ? AND "annotator" = ? AND "taskId" = ?`, [studyId, annotator, taskId]);
    return row ? clockActiveMs.one(row) : null;
  });
}
