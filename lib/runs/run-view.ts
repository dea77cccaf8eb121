import "server-only";
import { listRunAgents } from "@/lib/live/model-actor";
import { listRunEpisodeRows, type RunEpisodeRow } from "@/lib/db/run-episodes";
import { getRunById, isOwnerAlive, type Run } from "@/lib/db/runs";
import { computeStats, interCodeTurns, type StatsGroup } from "@/lib/stats/measures";
import { listSealedTaskKeys, sealKey } from "@/lib/studies/baseline-seal";
import { playUrl } from "@/lib/tasks/task-ref";
import { storedRunConfigSchema, type StoredRunConfig } from "./launch-options";
import { isRunActiveHere } from "./run-manager";
import type { RunMeasures, RunTaskView, RunView } from "./view-types";
import { isFinishedStatus } from "@/lib/db/episode-status";

function readConfig(run: Run): StoredRunConfig | null {
  try {
    const r = storedRunConfigSchema.safeParse(JSON.parse(run.config));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

function measures(label: string, g: StatsGroup): RunMeasures {
  return {
    label,
    episodes: g.episodes,
    solved: g.solved,
    successRate: g.successRate,
    meanTurns: g.meanTurns,
    errorRate: g.errorRate,
    successAtK: g.successAtK,
  };
}

/**
 * One row per task: its finished episode when it has one (a run never finishes a task twice),
 * else its latest; tasks of the stored task list with no episode yet are pending.
 */
function taskRows(config: StoredRunConfig | null, rows: RunEpisodeRow[], watchable: Set<string>): RunTaskView[] {
  const byTask = new Map<string, RunEpisodeRow>();
  for (const r of rows) {
    const prev = byTask.get(r.taskId);
    if (!prev || !isFinishedStatus(prev.status)) byTask.set(r.taskId, r);
  }
  const order = config?.taskIds ?? [...byTask.keys()];
  const extra = [...byTask.keys()].filter((id) => !order.includes(id));
  return [...order, ...extra].map((taskId): RunTaskView => {
    const e = byTask.get(taskId);
    if (!e) {
      return {
        taskId,
        episodeId: null,
        status: "pending",
        reward: null,
        success: false,
        turns: 0,
        solvedAtTurn: null,
        group: null,
        errorReason: null,
        tokensIn: 0,
        tokensOut: 0,
        costUsd: 0,
        startedAt: null,
        endedAt: null,
        watchHref: null,
      };
    }
    const dataset = config?.dataset ?? "";
    const watchHref =
      e.status === "running" && watchable.has(e.id) && config ? `${playUrl(config.env, dataset, taskId)}?agent=${encodeURIComponent(e.id)}` : null;
    return {
      taskId,
      episodeId: e.id,
      status: e.status,
      reward: e.reward,
      success: e.success,
      turns: interCodeTurns(e),
      ...(interCodeTurns(e) !== e.turnCount ? { storedTurns: e.turnCount } : {}),
      solvedAtTurn: e.solvedAtTurn,
      group: e.hardness ?? e.db,
      errorReason: e.errorReason,
      tokensIn: e.tokensIn,
      tokensOut: e.tokensOut,
      costUsd: e.costUsd,
      startedAt: e.startedAt,
      endedAt: e.endedAt,
      watchHref,
    };
  });
}

/** A run with its live counts, measures and per-task rows, or null when there is no such run. */
export async function buildRunView(id: string): Promise<RunView | null> {
  const run = await getRunById({ id });
  if (!run) return null;
  return await runView(run);
}

/** The view of a stored run (see buildRunView). */
export async function runView(run: Run): Promise<RunView> {
  const config = readConfig(run);
  const rows = await listRunEpisodeRows({ runId: run.id });
  const here = isRunActiveHere(run.id);
  const watchable = new Set(
    here
      ? listRunAgents(run.id)
          .filter((a) => !a.finished && a.episodeId)
          .map((a) => a.episodeId!)
      : [],
  );
  // Sealed tasks (an open study's, or one a baseline episode works): no reward, no success, and
  // no measure that would add them up.
  const sealed = await listSealedTaskKeys();
  const isSealed = (taskId: string) => config !== null && sealed.has(sealKey({ environment: config.env, dataset: config.dataset, taskId }));
  const tasks = taskRows(config, rows, watchable).map((t) =>
    isSealed(t.taskId) ? { ...t, reward: null, success: false, solvedAtTurn: null, sealed: true } : t,
  );
  const anySealed = tasks.some((t) => t.sealed);
  const finished = tasks.filter((t) => isFinishedStatus(t.status));
  const startedAt = run.startedAt?.getTime() ?? null;
  const sum = (f: (r: RunEpisodeRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const all = anySealed ? undefined : (await computeStats({ filters: { runId: run.id }, groupBy: [] })).groups[0];
  const groupBy = config?.env === "sql" ? "hardness" : config?.env === "bash" ? "db" : null;
  const groups =
    groupBy && !anySealed
      ? (await computeStats({ filters: { runId: run.id }, groupBy: [groupBy] })).groups.map((g) => measures(String(g.key[groupBy] ?? "unknown"), g))
      : [];
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    config,
    createdAt: run.createdAt.getTime(),
    startedAt,
    endedAt: run.endedAt?.getTime() ?? null,
    here,
    live: here || (run.status === "running" && isOwnerAlive(run.owner)),
    owner: run.owner,
    total: config?.taskIds?.length ?? run.total,
    done: finished.length,
    solved: finished.filter((t) => t.success).length,
    errors: finished.filter((t) => t.status === "error").length,
    running: tasks.filter((t) => t.status === "running").length,
    doneSinceStart: startedAt === null ? 0 : finished.filter((t) => (t.endedAt ?? 0) >= startedAt).length,
    tokensIn: sum((r) => r.tokensIn),
    tokensOut: sum((r) => r.tokensOut),
    costUsd: sum((r) => r.costUsd),
    overall: all ? measures("all", all) : null,
    groupBy: groups.some((g) => g.label !== "unknown") ? groupBy : null,
    groups: groups.some((g) => g.label !== "unknown") ? groups : [],
    tasks,
  };
}
