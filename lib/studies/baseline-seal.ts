import "server-only";
import { findOpenBaselineEpisode, listTasksWithOpenBaselineEpisodes, type TaskKey } from "@/lib/db/seals";
import { ConflictError } from "@/lib/errors";
import { listStudyViews } from "./studies";

/**
 * The seal that keeps human baselines blind. A task is sealed
 * - by a study: every task of a study from its creation until it is closed; and
 * - by a baseline episode: while a human baseline episode on it is unsubmitted (running, or
 *   interrupted and resumable), whether or not it belongs to a study.
 * While sealed, no page, list or export shows its gold solution, the gold output, or the reward of
 * any episode on it, and nothing may score it (the gold run, a recheck, a branch, a model run, a
 * play episode). The owner sees a study's outcomes only behind an explicit, logged reveal
 * (lib/studies/seal-reveal.ts). Imports never create a seal (they make no study and no running
 * baseline episode).
 */

export type { TaskKey } from "@/lib/db/seals";

/** What seals a task. */
export type Seal = { kind: "baseline"; episodeId: string; annotator: string | null } | { kind: "study"; studyId: string; studyName: string };

/** The key `listSealedTaskKeys` uses for a task. */
export function sealKey(key: TaskKey): string {
  return `${key.environment}/${key.dataset}/${key.taskId}`;
}

type StudySeal = Extract<Seal, { kind: "study" }>;

/** Every task of an open study, with the open studies that hold it (newest first). */
async function listStudySealsAll(): Promise<Map<string, StudySeal[]>> {
  const out = new Map<string, StudySeal[]>();
  for (const s of await listStudyViews()) {
    if (s.closedAt) continue;
    for (const t of s.config.tasks) {
      const k = sealKey({ environment: s.config.env, dataset: s.config.dataset, taskId: t });
      out.set(k, [...(out.get(k) ?? []), { kind: "study", studyId: s.id, studyName: s.name }]);
    }
  }
  return out;
}

/** Every task of an open study, with one study that holds it (the newest). */
export async function listStudySeals(): Promise<Map<string, StudySeal>> {
  return new Map([...(await listStudySealsAll())].map(([k, v]) => [k, v[0]]));
}

/**
 * What seals `key`: an open study holding the task (unless `opts.exceptStudy` is that study,
 * for its own baseline episodes), else an unsubmitted baseline episode other than `exceptId`;
 * null when nothing does.
 */
export async function findSeal(key: TaskKey, exceptId?: string, opts: { exceptStudy?: string | null } = {}): Promise<Seal | null> {
  const study = ((await listStudySealsAll()).get(sealKey(key)) ?? []).find((x) => x.studyId !== opts.exceptStudy);
  if (study) return study;
  const row = await findOpenBaselineEpisode(key, exceptId);
  return row ? { kind: "baseline", episodeId: row.id, annotator: row.annotator } : null;
}

/** Every sealed task, as `environment/dataset/taskId` keys (for lists and exports). */
export async function listSealedTaskKeys(): Promise<Set<string>> {
  const keys = new Set((await listStudySeals()).keys());
  for (const k of await listTasksWithOpenBaselineEpisodes()) keys.add(sealKey(k));
  return keys;
}

/** The message a refused request gets: what is sealed, by what, and how it lifts. */
export function sealMessage(key: TaskKey, seal: Seal, what: string): string {
  const task = `task ${key.dataset}:${key.taskId} (${key.environment})`;
  if (seal.kind === "study") {
    return `${what} is refused: ${task} is sealed by the open study "${seal.studyName}" (${seal.studyId}); its gold and rewards stay hidden until the study is closed (icstudio studies close ${seal.studyId})`;
  }
  return `${what} is refused: ${task} is sealed by the unsubmitted baseline episode ${seal.episodeId}${seal.annotator ? ` (annotator ${seal.annotator})` : ""}; its gold and rewards stay hidden until that episode is submitted or skipped`;
}

/**
 * Throws when the task is sealed (see findSeal).
 * @throws ConflictError (HTTP 409) naming the task and what seals it.
 */
export async function assertTaskUnsealed(key: TaskKey, what: string, exceptId?: string): Promise<void> {
  const seal = await findSeal(key, exceptId);
  if (seal) throw new ConflictError(sealMessage(key, seal, what), seal.kind === "study" ? { sealedByStudy: seal.studyId } : { sealedBy: seal.episodeId });
}

/**
 * Refuses a model run before it starts when any of its tasks is sealed, naming the first such
 * task and its study (or episode).
 * @throws ConflictError
 */
export async function assertRunUnsealed(env: string, dataset: string, taskIds: readonly string[]): Promise<void> {
  const studies = await listStudySeals();
  const open = new Set((await listTasksWithOpenBaselineEpisodes()).map(sealKey));
  for (const taskId of taskIds) {
    const key = { environment: env, dataset, taskId };
    const k = sealKey(key);
    const study = studies.get(k);
    if (study) throw new ConflictError(sealMessage(key, study, "a model run on it"), { sealedByStudy: study.studyId, taskId });
    if (open.has(k)) await assertTaskUnsealed(key, "a model run on it");
  }
}

/** Rows of sealed tasks with their reward and success hidden (`sealed: true`), for lists. */
export async function redactSealedRows<T extends TaskKey & { reward: number | null; success: boolean }>(rows: T[]): Promise<(T & { sealed?: boolean })[]> {
  if (!rows.length) return rows;
  const sealed = await listSealedTaskKeys();
  return rows.map((r) => (sealed.has(sealKey(r)) ? { ...r, reward: null, success: false, sealed: true } : r));
}
