import "server-only";
import { addStudyTaskActiveMs, getStudyTaskClock } from "@/lib/db/studies";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { getStudy } from "./studies";

/**
 * A study task's active time. The task page sends a beat every few seconds with the active time
 * since its last beat: only time while the page is open, visible and focused, and the person
 * active (an input within IC_STUDY_IDLE_MS) counts; an idle or hidden page sends nothing. A beat
 * counts at most BEAT_MAX_MS, so a page cannot claim more time than passed.
 */
export const BEAT_MAX_MS = 15_000;
/** How often the page beats. */
export const BEAT_EVERY_MS = 5_000;

export interface ClockState {
  activeMs: number;
  timeLimitMs: number | null;
  /** Null without a limit; 0 once time is up. */
  remainingMs: number | null;
}

/** Adds one beat's active time to the annotator's clock of a study task. @throws NotFoundError, BadInputError */
export async function beatStudyClock(studyId: string, annotator: string, taskId: string, ms: number): Promise<ClockState> {
  const study = await getStudy(studyId);
  if (!study) throw new NotFoundError(`study ${studyId}`);
  if (!study.config.tasks.includes(taskId)) throw new BadInputError(`task ${taskId} is not one of study ${study.name}'s tasks`, "body taskId");
  const activeMs = await addStudyTaskActiveMs({ studyId, annotator, taskId, ms: Math.max(0, Math.min(BEAT_MAX_MS, Math.round(ms))) });
  return clockState(activeMs, study.config.timeLimitMs);
}

/** The clock of a study task for an annotator, as it stands. */
export async function readStudyClock(studyId: string, annotator: string, taskId: string): Promise<ClockState> {
  const study = await getStudy(studyId);
  const row = await getStudyTaskClock({ studyId, annotator, taskId });
  return clockState(row?.activeMs ?? 0, study?.config.timeLimitMs ?? null);
}

function clockState(activeMs: number, timeLimitMs: number | null): ClockState {
  return { activeMs, timeLimitMs, remainingMs: timeLimitMs === null ? null : Math.max(0, timeLimitMs - activeMs) };
}
