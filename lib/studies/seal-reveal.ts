import "server-only";
import { createSealRevealRow, listSealRevealsByStudy } from "@/lib/db/studies";
import { NotFoundError } from "@/lib/errors";
import { getStudy } from "./studies";

/**
 * The owner's explicit look behind an open study's seal: each reveal is logged (what, when) and
 * shows the study's outcomes (rewards, solved) on its results page for REVEAL_MS; then the page
 * hides them again until the next logged reveal. A closed study needs none.
 */
export const REVEAL_MS = 15 * 60_000;

/** Logs a reveal of `what` (e.g. "results") of an open study. @throws NotFoundError */
export async function revealStudy(studyId: string, what: string): Promise<{ revealedAt: Date; until: Date }> {
  if (!(await getStudy(studyId))) throw new NotFoundError(`study ${studyId}`);
  const row = await createSealRevealRow({ studyId, what });
  return { revealedAt: row.createdAt, until: new Date(row.createdAt.getTime() + REVEAL_MS) };
}

/** Whether the study's outcomes may be shown now: it is closed, or a reveal was logged within REVEAL_MS. */
export async function outcomesVisible(studyId: string, now = Date.now()): Promise<{ visible: boolean; reveals: { what: string; createdAt: Date }[] }> {
  const study = await getStudy(studyId);
  const reveals = await listSealRevealsByStudy({ studyId });
  if (!study) return { visible: false, reveals };
  if (study.closedAt) return { visible: true, reveals };
  return { visible: reveals.some((r) => r.createdAt.getTime() > now - REVEAL_MS), reveals };
}
