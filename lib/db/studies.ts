import "server-only";
import { ConflictError } from "@/lib/errors";
import { withPrisma } from "./client";
import type { Study } from "./generated/client";

export type { Study } from "./generated/client";

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
  return withPrisma((prisma) => prisma.study.findUnique({ where: { id } }));
}

export async function listStudies(): Promise<Study[]> {
  return withPrisma((prisma) => prisma.study.findMany({ orderBy: { createdAt: "desc" } }));
}

/** What a study's progress needs of one episode. */
export interface StudyEpisodeState {
  id: string;
  taskId: string;
  status: string;
  errorReason: string | null;
  startedAt: Date;
}

/** An annotator's episodes in a study, oldest first (light rows: no text, no turns). */
export async function listStudyEpisodesByAnnotator({ studyId, annotator }: { studyId: string; annotator: string }): Promise<StudyEpisodeState[]> {
  return withPrisma((prisma) =>
    prisma.episode.findMany({
      where: { studyId, annotator },
      select: { id: true, taskId: true, status: true, errorReason: true, startedAt: true },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    }),
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

/** Every episode of a study, oldest first (light rows: no text, no turns). */
export async function listStudyEpisodeResultsByStudy({ studyId }: { studyId: string }): Promise<StudyEpisodeResult[]> {
  return withPrisma((prisma) =>
    prisma.episode.findMany({
      where: { studyId },
      select: {
        id: true,
        taskId: true,
        status: true,
        errorReason: true,
        startedAt: true,
        annotator: true,
        reward: true,
        success: true,
        durationMs: true,
        endedAt: true,
      },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    }),
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

/** A study's reveals, newest first. */
export async function listSealRevealsByStudy({ studyId }: { studyId: string }): Promise<{ id: string; what: string; createdAt: Date }[]> {
  return withPrisma((prisma) =>
    prisma.sealReveal.findMany({ where: { studyId }, orderBy: { createdAt: "desc" }, select: { id: true, what: true, createdAt: true } }),
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

/** Every task clock of a study. */
export async function listStudyTaskClocksByStudy({
  studyId,
}: {
  studyId: string;
}): Promise<{ annotator: string; taskId: string; activeMs: number; firstAt: Date; lastAt: Date }[]> {
  return withPrisma((prisma) =>
    prisma.studyTaskClock.findMany({ where: { studyId }, select: { annotator: true, taskId: true, activeMs: true, firstAt: true, lastAt: true } }),
  );
}

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
  return withPrisma((prisma) =>
    prisma.studyTaskClock.findUnique({ where: { studyId_annotator_taskId: { studyId, annotator, taskId } }, select: { activeMs: true } }),
  );
}
