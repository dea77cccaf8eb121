import "server-only";
import { withPrisma } from "./client";
import { withWriteLock } from "./lock";

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

/** A run's episodes with what its summary needs, oldest first. */
export async function listRunEpisodeOutcomes({ runId }: { runId: string }): Promise<
  { id: string; taskId: string; status: string; success: boolean; reward: number | null; turnCount: number; invalidCount: number; checkedCount: number }[]
> {
  return withPrisma((prisma) =>
    prisma.episode.findMany({
      where: { runId },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
      select: { id: true, taskId: true, status: true, success: true, reward: true, turnCount: true, invalidCount: true, checkedCount: true },
    }),
  );
}

/** Overwrites a run's counters (after a resume the counts are recomputed from its episodes). */
export async function setRunCounts({ id, total, done, solved, errors }: { id: string; total?: number; done?: number; solved?: number; errors?: number }): Promise<void> {
  await withWriteLock(() => withPrisma((prisma) => prisma.run.update({ where: { id }, data: { total, done, solved, errors } })));
}
