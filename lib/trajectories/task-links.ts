import "server-only";
import type { BulkEpisode } from "@/lib/db/bulk-import";
import { listDatasetSources, loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { NotFoundError } from "@/lib/errors";
import type { EpisodeFlag } from "./flags";
import { TASK_ID_RULES } from "./intercode";
import type { LogFormat } from "./parse-log";

/** A task set's tasks by position and by id, or null when it is not installed. */
type TaskSet = { tasks: Task[]; byId: Map<string, Task> } | null;

function taskSetOf(dataset: string, cache: Map<string, TaskSet>): TaskSet {
  if (cache.has(dataset)) return cache.get(dataset)!;
  let set: TaskSet = null;
  try {
    const tasks = loadDataset(dataset);
    set = { tasks, byId: new Map(tasks.map((t) => [t.id, t])) };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  cache.set(dataset, set);
  return set;
}

/** Questions compared as text, white space at the ends and runs of it aside. */
const sameQuestion = (a: string, b: string) => a.trim().replace(/\s+/g, " ") === b.trim().replace(/\s+/g, " ");

/** What an InterCode log's episode fields say about its task. */
export interface LoggedTask {
  environment: string;
  dataset: string;
  taskId: string;
  taskIndex?: number | null;
  query: string;
}

/**
 * The task a logged episode was played on, by its log format's declared rule (`TASK_ID_RULES`):
 * under `index` the log's id is the task's position in the task file (a Python log's task 0 is
 * MBPP task 1); under `dataset-id` it is the task set's own id. `textDiffers` when the logged
 * question is not the task's (a reworded task): the link stands, it is never moved to a task that
 * reads alike. Null when the task set is not installed or holds no such task. The Studio's own
 * JSONL carries the task set's ids and has no rule here (null).
 */
export function taskOfLog(format: LogFormat, ep: LoggedTask, cache = new Map<string, TaskSet>()): { task: Task; textDiffers: boolean } | null {
  if (format !== "results" && format !== "envlog" && format !== "run") return null;
  const rule = TASK_ID_RULES[format][ep.environment as keyof (typeof TASK_ID_RULES)["results"]];
  if (!rule) return null;
  const set = taskSetOf(ep.dataset, cache);
  const task = !set
    ? undefined
    : rule === "index"
      ? ep.taskIndex === null || ep.taskIndex === undefined
        ? undefined
        : set.tasks[ep.taskIndex]
      : set.byId.get(ep.taskId);
  if (!task || task.env !== ep.environment) return null;
  return { task, textDiffers: !sameQuestion(task.query, ep.query) };
}

/**
 * Links each episode of an InterCode log to its task (`taskOfLog`) and stores it under the task
 * set's id: a reworded question keeps that link and is flagged `task-text-differs`; an episode
 * whose task set is not installed, or holds no task there, keeps the log's id and is flagged
 * `task-unlinked`. The Studio's own JSONL is left as it is. Changes `episodes` in place.
 */
export function linkTasks(format: LogFormat, episodes: BulkEpisode[]): BulkEpisode[] {
  if (format !== "results" && format !== "envlog" && format !== "run") return episodes;
  const cache = new Map<string, TaskSet>();
  for (const ep of episodes) {
    const link = taskOfLog(format, ep, cache);
    const flags = new Set((ep.flags ?? "").split(" ").filter(Boolean) as EpisodeFlag[]);
    if (!link) {
      flags.add("task-unlinked");
    } else {
      ep.taskId = link.task.id;
      ep.taskIndex = link.task.index;
      if (link.textDiffers) flags.add("task-text-differs");
    }
    ep.flags = [...flags].join(" ");
  }
  return episodes;
}

// Other tools' logs (Inspect, ATIF) name no InterCode id rule: they link by the CTF id or the question.
/**
 * Which InterCode task an episode from another tool's log plays, so that it shows beside the
 * task's gold and can be rechecked in the Studio's environment: a CTF task by its id (Inspect's
 * `gdm_intercode_ctf` keeps InterCode's task_id as the sample id), else any InterCode task whose
 * question is the sample's input, word for word (whitespace at the ends aside).
 */
export interface TaskLinker {
  /** `ctf`: the log names the InterCode CTF task set. */
  byId(set: "ctf", id: string): Task | null;
  byQuestion(text: string): Task | null;
}

/** A linker over the InterCode task sets fetched on this machine (none fetched: nothing links). */
export function intercodeTaskLinker(): TaskLinker {
  let ctf: Map<string, Task> | null = null;
  let questions: Map<string, Task> | null = null;
  const intercode = () => listDatasetSources().filter((s) => s.source === "intercode");
  return {
    byId(_set, id) {
      if (!ctf) {
        const src = intercode().find((s) => s.name === "ctf");
        ctf = new Map(src ? loadDataset(src.name).map((t) => [t.id, t]) : []);
      }
      return ctf.get(id) ?? null;
    },
    byQuestion(text) {
      if (!questions) {
        questions = new Map();
        for (const s of intercode()) for (const t of loadDataset(s.name)) if (!questions.has(t.query.trim())) questions.set(t.query.trim(), t);
      }
      return questions.get(text.trim()) ?? null;
    },
  };
}

/** Links nothing (tests of the mapping alone). */
export const noTaskLinker: TaskLinker = { byId: () => null, byQuestion: () => null };
