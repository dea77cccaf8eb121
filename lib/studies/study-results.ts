import "server-only";
import { listRunEpisodeOutcomes } from "@/lib/db/run-episodes";
import { listRuns } from "@/lib/db/runs";
import { listStudyEpisodeResultsByStudy, listStudyTaskClocksByStudy } from "@/lib/db/studies";
import { SKIP_REASON_PREFIX } from "@/lib/episodes/rules";
import { z } from "zod";
import { listParticipants } from "./participants";
import { getStudy, settlesStudyTask, type StudyView } from "./studies";

/**
 * A study's results for its researcher: one row per annotator and task (solved, reward, active
 * and wall time, skip reason), summed per annotator and per task, live progress (current task,
 * active time), and the model runs on the same tasks beside the humans.
 */

/** An annotator is "working now" when their task page beat within this. */
export const LIVE_WITHIN_MS = 30_000;

export interface TaskResult {
  annotator: string;
  taskId: string;
  /** 1-based place of the task in the annotator's order. */
  position: number;
  /** submitted | skipped | working | not started */
  state: "submitted" | "skipped" | "working" | "not started";
  reward: number | null;
  solved: boolean;
  /** Active time on the task page (the clock), ms. */
  activeMs: number;
  /** From the task page's first beat (or the episode's start) to the episode's end (or now), ms; null before. */
  wallMs: number | null;
  skipReason: string | null;
  episodeId: string | null;
}

export interface AnnotatorSummary {
  annotator: string;
  participantId: string | null;
  done: number;
  submitted: number;
  skipped: number;
  solved: number;
  meanReward: number | null;
  activeMs: number;
  wallMs: number;
  /** Active time per attempted (submitted) task: skipped tasks are not in the divisor. */
  activeMsPerAttempted: number | null;
  /** The task they are on (their order), null when done. */
  currentTask: string | null;
  currentActiveMs: number;
  live: boolean;
  completionCode: string | null;
}

export interface TaskSummary {
  taskId: string;
  submitted: number;
  skipped: number;
  solved: number;
  meanReward: number | null;
  meanActiveMs: number | null;
  skipReasons: string[];
}

export interface ModelBeside {
  runId: string;
  runName: string;
  model: string;
  /** Per study task: the run's reward (null: not run or unfinished). */
  rewards: Record<string, number | null>;
  solved: number;
  finished: number;
}

export interface StudyResults {
  study: StudyView;
  rows: TaskResult[];
  annotators: AnnotatorSummary[];
  tasks: TaskSummary[];
  models: ModelBeside[];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** The study's results (see the module comment); null when there is no such study. */
export async function buildStudyResults(studyId: string, now = Date.now()): Promise<StudyResults | null> {
  const study = await getStudy(studyId);
  if (!study) return null;
  const [episodes, clocks, participants] = await Promise.all([
    listStudyEpisodeResultsByStudy({ studyId }),
    listStudyTaskClocksByStudy({ studyId }),
    listParticipants(studyId),
  ]);
  const clockOf = new Map(clocks.map((c) => [`${c.annotator}\u0000${c.taskId}`, c]));
  const orderOf = new Map(participants.map((p) => [p.label, p.tasks]));
  const annotators = [
    ...new Set([...participants.map((p) => p.label), ...episodes.map((e) => e.annotator).filter((a): a is string => !!a), ...clocks.map((c) => c.annotator)]),
  ];

  const rows: TaskResult[] = [];
  const summaries: AnnotatorSummary[] = [];
  for (const annotator of annotators) {
    const order = orderOf.get(annotator) ?? study.config.tasks;
    const mine = episodes.filter((e) => e.annotator === annotator);
    let current: string | null = null;
    for (const [i, taskId] of order.entries()) {
      const eps = mine.filter((e) => e.taskId === taskId);
      const settled = eps.find(settlesStudyTask) ?? null;
      const open = eps.filter((e) => e.status === "running" || e.status === "interrupted").at(-1) ?? null;
      const clock = clockOf.get(`${annotator}\u0000${taskId}`);
      const state: TaskResult["state"] = settled ? (settled.status === "submitted" ? "submitted" : "skipped") : open || clock ? "working" : "not started";
      if (!settled && current === null) current = taskId;
      const start = Math.min(clock?.firstAt.getTime() ?? Infinity, (settled ?? open)?.startedAt.getTime() ?? Infinity);
      const end = settled?.endedAt?.getTime() ?? (state === "working" ? now : null);
      rows.push({
        annotator,
        taskId,
        position: i + 1,
        state,
        reward: settled?.status === "submitted" ? settled.reward : null,
        solved: settled?.status === "submitted" && (settled.success || (settled.reward ?? 0) >= 1),
        activeMs: clock?.activeMs ?? 0,
        wallMs: Number.isFinite(start) && end !== null ? Math.max(0, end - start) : null,
        skipReason: state === "skipped" ? (settled?.errorReason ?? "").slice(SKIP_REASON_PREFIX.length).trim() || "no reason given" : null,
        episodeId: (settled ?? open)?.id ?? null,
      });
    }
    const own = rows.filter((r) => r.annotator === annotator);
    const submitted = own.filter((r) => r.state === "submitted");
    const p = participants.find((x) => x.label === annotator);
    const lastBeat = Math.max(0, ...clocks.filter((c) => c.annotator === annotator).map((c) => c.lastAt.getTime()));
    summaries.push({
      annotator,
      participantId: p?.id ?? null,
      done: own.filter((r) => r.state === "submitted" || r.state === "skipped").length,
      submitted: submitted.length,
      skipped: own.filter((r) => r.state === "skipped").length,
      solved: submitted.filter((r) => r.solved).length,
      meanReward: mean(submitted.map((r) => r.reward ?? 0)),
      activeMs: own.reduce((s, r) => s + r.activeMs, 0),
      wallMs: own.reduce((s, r) => s + (r.wallMs ?? 0), 0),
      activeMsPerAttempted: submitted.length ? submitted.reduce((s, r) => s + r.activeMs, 0) / submitted.length : null,
      currentTask: current,
      currentActiveMs: current ? (clockOf.get(`${annotator}\u0000${current}`)?.activeMs ?? 0) : 0,
      live: now - lastBeat < LIVE_WITHIN_MS,
      completionCode: p?.completionCode ?? null,
    });
  }

  const tasks: TaskSummary[] = study.config.tasks.map((taskId) => {
    const on = rows.filter((r) => r.taskId === taskId);
    const sub = on.filter((r) => r.state === "submitted");
    return {
      taskId,
      submitted: sub.length,
      skipped: on.filter((r) => r.state === "skipped").length,
      solved: sub.filter((r) => r.solved).length,
      meanReward: mean(sub.map((r) => r.reward ?? 0)),
      meanActiveMs: mean(sub.map((r) => r.activeMs)),
      skipReasons: on.filter((r) => r.skipReason).map((r) => `${r.annotator}: ${r.skipReason}`),
    };
  });

  return { study, rows, annotators: summaries, tasks, models: await modelsBeside(study) };
}

/** What a run's stored config says of its tasks' home (lib/runs owns the full schema; this reads only these). */
const runHomeSchema = z.object({ env: z.string(), dataset: z.string(), model: z.string() });

/** The model runs on the same environment and dataset that ran some of the study's tasks, with their reward per task. */
async function modelsBeside(study: StudyView): Promise<ModelBeside[]> {
  const inStudy = new Set(study.config.tasks);
  const out: ModelBeside[] = [];
  for (const run of await listRuns({ limit: 200 })) {
    let c;
    try {
      c = runHomeSchema.parse(JSON.parse(run.config));
    } catch {
      continue;
    }
    if (c.env !== study.config.env || c.dataset !== study.config.dataset) continue;
    const outcomes = (await listRunEpisodeOutcomes({ runId: run.id })).filter((o) => inStudy.has(o.taskId) && o.status === "submitted");
    if (!outcomes.length) continue;
    const rewards: Record<string, number | null> = Object.fromEntries(study.config.tasks.map((t) => [t, null]));
    for (const o of outcomes) rewards[o.taskId] = o.reward;
    out.push({ runId: run.id, runName: run.name, model: c.model, rewards, solved: outcomes.filter((o) => o.success).length, finished: outcomes.length });
  }
  return out;
}

/** The per-annotator-and-task rows as flat records, for CSV and JSONL. */
export function resultRecords(r: StudyResults): Record<string, unknown>[] {
  return r.rows.map((x) => ({ study: r.study.name, studyId: r.study.id, ...x }));
}
