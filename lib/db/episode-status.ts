/**
 * An episode's status column: its values, and which of them are an end. Stated once here; the
 * store's readers, the wire schemas, the measures, runs and failure analysis take them from here.
 * Client-safe (no store access): the wire schemas and pages use it too.
 */
export const EPISODE_STATUSES = ["running", "submitted", "abandoned", "error", "interrupted"] as const;
export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];

/**
 * Ended with an outcome: what the paper's measures count, what finishes a task of a run, what
 * failure analysis judges. An episode still running, or interrupted (the server stopped under it),
 * is none of these.
 */
export const FINISHED_STATUSES = ["submitted", "abandoned", "error"] as const;
export type FinishedStatus = (typeof FINISHED_STATUSES)[number];

/** Every status an episode can end in: the finished ones and `interrupted`. */
export const END_STATUSES = [...FINISHED_STATUSES, "interrupted"] as const;

const finished: ReadonlySet<string> = new Set(FINISHED_STATUSES);

/** Whether a status is one of the finished ones (an outcome to count). */
export function isFinishedStatus(status: string): status is FinishedStatus {
  return finished.has(status);
}
