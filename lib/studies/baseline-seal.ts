import "server-only";
import { findOpenBaselineEpisode, listTasksWithOpenBaselineEpisodes, type TaskKey } from "@/lib/db/seals";
import { ConflictError } from "@/lib/errors";

/**
 * The baseline seal. While a human baseline episode on a task is unsubmitted (running, or
 * interrupted and resumable), the task is sealed: no route may hand out its gold solution, the
 * gold output, a reward of an episode on it, or a way to score it (the gold run, a recheck, a
 * branch, a model run, a play episode). The Studio has no user accounts (one token for everyone,
 * annotator names are typed in), so the seal holds for every caller, not only for the annotator;
 * it lifts when the episode is submitted or abandoned (skipped).
 */

export type { TaskKey } from "@/lib/db/seals";

/** The baseline episode that seals a task. */
export interface Seal {
  episodeId: string;
  annotator: string | null;
}

/**
 * The unsubmitted baseline episode on `key`, other than `exceptId`, or null when the task is not
 * sealed (for that episode).
 */
export async function findSeal(key: TaskKey, exceptId?: string): Promise<Seal | null> {
  const row = await findOpenBaselineEpisode(key, exceptId);
  return row ? { episodeId: row.id, annotator: row.annotator } : null;
}

/** Every sealed task, as `environment/dataset/taskId` keys (for lists and exports). */
export async function listSealedTaskKeys(): Promise<Set<string>> {
  return new Set((await listTasksWithOpenBaselineEpisodes()).map(sealKey));
}

/** The key `listSealedTaskKeys` uses for a task. */
export function sealKey(key: TaskKey): string {
  return `${key.environment}/${key.dataset}/${key.taskId}`;
}

/** The message a refused request gets: what is sealed, by which episode, and how it lifts. */
export function sealMessage(key: TaskKey, seal: Seal, what: string): string {
  return `${what} is refused: task ${key.dataset}:${key.taskId} (${key.environment}) is sealed by the unsubmitted baseline episode ${seal.episodeId}${seal.annotator ? ` (annotator ${seal.annotator})` : ""}; its gold and rewards stay hidden until that episode is submitted or skipped`;
}

/**
 * Throws when the task is sealed by a baseline episode other than `exceptId`.
 * @throws ConflictError (HTTP 409) naming the sealing episode.
 */
export async function assertTaskUnsealed(key: TaskKey, what: string, exceptId?: string): Promise<void> {
  const seal = await findSeal(key, exceptId);
  if (seal) throw new ConflictError(sealMessage(key, seal, what), { sealedBy: seal.episodeId });
}
