import "server-only";
import { z } from "zod";
import { closeStudyById, createStudy, getStudyById, listStudies, listStudyEpisodesByAnnotator, type Study } from "@/lib/db/studies";
import { loadDataset } from "@/lib/datasets/registry";
import { envNameSchema } from "@/lib/datasets/types";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { DEFAULT_TURN_LIMIT, isSkipReason } from "@/lib/episodes/rules";
import { playUrl } from "@/lib/tasks/task-ref";
import { selectTasks } from "@/lib/datasets/selection";

/** How a study picks its tasks: a slice of a dataset, or a seeded random sample of it. */
export const studySelectionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("slice"), from: z.number().int().min(0).default(0), count: z.number().int().min(1).max(2000) }),
  z.object({ kind: z.literal("random"), count: z.number().int().min(1).max(2000), seed: z.number().int() }),
  /** Dataset positions (0-based), in the order given. */
  z.object({ kind: z.literal("indices"), indices: z.array(z.number().int().min(0)).min(1).max(2000) }),
]);

/**
 * What a participant sees of an outcome: none (nothing, not even whether they solved it),
 * reward (the reward after each turn and after a submit), full (that, and after a submit the
 * reward's breakdown and their answer as scored). The gold is apart: showGoldAfterSubmit.
 */
export const studyFeedbackSchema = z.enum(["none", "reward", "full"]);
export type StudyFeedback = z.infer<typeof studyFeedbackSchema>;

/** The per-turn feedback of a study's episodes (lib/live/events.ts's Feedback). */
export function episodeFeedback(f: StudyFeedback): "none" | "reward" {
  return f === "none" ? "none" : "reward";
}
/** How each participant's task order is made: as listed, seeded random, or a Latin square row. */
export const studyAssignSchema = z.enum(["fixed", "random", "balanced"]);
export type StudyAssign = z.infer<typeof studyAssignSchema>;

/** What the Study row's `config` JSON holds. */
export const studyConfigSchema = z.object({
  env: envNameSchema,
  dataset: z.string().min(1),
  selection: studySelectionSchema,
  feedback: studyFeedbackSchema.default("none"),
  turnLimit: z.number().int().min(1).max(100).default(DEFAULT_TURN_LIMIT),
  assign: studyAssignSchema.default("fixed"),
  /** Participants see the gold solution after their submit (never before, never of other tasks). */
  showGoldAfterSubmit: z.boolean().default(false),
  /** Active time a participant may spend on one task (ms); null: no limit. */
  timeLimitMs: z
    .number()
    .int()
    .min(1000)
    .max(24 * 3600_000)
    .nullable()
    .default(null),
  /** Shown before the consent button. */
  instructions: z.string().max(20_000).default(""),
  /** Task ids in the order annotators work them. */
  tasks: z.array(z.string().min(1)).min(1),
});
export type StudyConfig = z.infer<typeof studyConfigSchema>;

export const newStudySchema = studyConfigSchema.omit({ tasks: true }).extend({ name: z.string().trim().min(1).max(200) });
export type NewStudy = z.input<typeof newStudySchema>;

/** Picks the study's tasks from its dataset (lib/datasets/selection.ts). */
export function selectStudyTasks(dataset: string, env: string, selection: z.infer<typeof studySelectionSchema>): string[] {
  const tasks = loadDataset(dataset);
  if (tasks.length && tasks[0].env !== env) throw new BadInputError(`dataset ${dataset} holds ${tasks[0].env} tasks, not ${env}`, "dataset");
  if (selection.kind === "slice" && selection.from >= tasks.length)
    throw new BadInputError(`the slice starts past the end of ${dataset} (${tasks.length} tasks)`, "selection.from");
  if (selection.kind === "indices") {
    const bad = selection.indices.find((i) => i >= tasks.length);
    if (bad !== undefined) throw new BadInputError(`task index ${bad} is past the end of ${dataset} (${tasks.length} tasks, 0..${tasks.length - 1})`, "tasks");
    if (new Set(selection.indices).size !== selection.indices.length) throw new BadInputError("a task index is listed twice", "tasks");
    return selection.indices.map((i) => tasks[i].id);
  }
  const picked = selectTasks(
    tasks,
    selection.kind === "slice"
      ? { kind: "slice", offset: selection.from, limit: selection.count }
      : { kind: "sample", limit: selection.count, seed: selection.seed },
  );
  return picked.map((t) => t.id);
}

/** Creates a study with its task list fixed at creation. */
export async function createStudyFromSelection(input: NewStudy): Promise<Study> {
  const parsed = newStudySchema.parse(input);
  const tasks = selectStudyTasks(parsed.dataset, parsed.env, parsed.selection);
  const { name, ...rest } = parsed;
  return createStudy({ name, config: { ...rest, tasks } satisfies StudyConfig });
}

export interface StudyView {
  id: string;
  name: string;
  config: StudyConfig;
  createdAt: Date;
  /** Null while the study is open (and its tasks sealed). */
  closedAt: Date | null;
}

function view(s: Study): StudyView {
  const config = studyConfigSchema.parse(JSON.parse(s.config));
  return { id: s.id, name: s.name, config, createdAt: s.createdAt, closedAt: s.closedAt };
}

export async function getStudy(id: string): Promise<StudyView | null> {
  const s = await getStudyById({ id });
  return s ? view(s) : null;
}

export async function listStudyViews(): Promise<StudyView[]> {
  return (await listStudies()).map(view);
}

/** Conditions and size of a study, for a task page played within it. */
export async function getStudyProgress(id: string, position: number) {
  const s = await getStudy(id);
  if (!s) return null;
  return {
    name: s.name,
    total: s.config.tasks.length,
    feedback: episodeFeedback(s.config.feedback),
    turnLimit: s.config.turnLimit,
    position,
    nextHref: `/play/study/${encodeURIComponent(id)}`,
  };
}

/**
 * Whether an episode settles its study task for the annotator: submitted, or abandoned by the
 * study's Skip (its reason carries the skip prefix). Any other end (an abandon without the skip
 * prefix, a sandbox error) or an episode still running or interrupted (idle sandbox, closed tab,
 * server restart) leaves the task to do.
 */
export function settlesStudyTask(e: { status: string; errorReason: string | null }): boolean {
  return e.status === "submitted" || (e.status === "abandoned" && isSkipReason(e.errorReason));
}

/**
 * Where an annotator goes next in a study: the first task (in study order) that no episode of
 * theirs settles (see settlesStudyTask). When they left an episode of that task running or
 * interrupted, `href` resumes the newest such episode (its turns and clock); otherwise it opens a
 * fresh one. `href` is null when all are done.
 */
export async function nextStudyTask(
  id: string,
  annotator: string,
  /** The participant's own task order (lib/studies/participants.ts); default: the study's. */
  order?: readonly string[],
): Promise<{ position: number; total: number; done: number; href: string | null; resumeEpisodeId: string | null }> {
  const s = await getStudy(id);
  if (!s) throw new NotFoundError(`study ${id}`);
  const finished = new Set<string>();
  const unfinished = new Map<string, string>();
  for (const e of await listStudyEpisodesByAnnotator({ studyId: id, annotator })) {
    if (settlesStudyTask(e)) finished.add(e.taskId);
    // Oldest first: the newest open episode of a task wins.
    else if (e.status === "running" || e.status === "interrupted") unfinished.set(e.taskId, e.id);
  }
  const tasks = order ?? s.config.tasks;
  const position = tasks.findIndex((t) => !finished.has(t));
  const done = tasks.filter((t) => finished.has(t)).length;
  if (position < 0) return { position: tasks.length, total: tasks.length, done, href: null, resumeEpisodeId: null };
  const resumeEpisodeId = unfinished.get(tasks[position]) ?? null;
  const q = new URLSearchParams({ study: id, i: String(position) });
  if (resumeEpisodeId) q.set("episode", resumeEpisodeId);
  return { position, total: tasks.length, done, href: `${playUrl(s.config.env, s.config.dataset, tasks[position])}?${q}`, resumeEpisodeId };
}

/** Closes a study: no participant can go on, and its tasks' seal lifts. @throws NotFoundError */
export async function closeStudy(id: string): Promise<{ closed: boolean }> {
  if (!(await getStudyById({ id }))) throw new NotFoundError(`study ${id}`);
  return { closed: await closeStudyById({ id }) };
}
