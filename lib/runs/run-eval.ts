import "server-only";
import type { RunIdentity } from "./launch-options";
import type { Task } from "@/lib/datasets/types";
import type { EnvironmentOptions } from "@/lib/env/types";
import type { RetryPolicy } from "@/lib/agent/call-model";
import { EpisodeController } from "@/lib/episodes/controller";
import type { ResolvedModel } from "@/lib/agent/models";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import { runEpisode } from "@/lib/agent/run-episode";
import type { AgentEvent, EpisodeOutcome } from "@/lib/episodes/agent-event";
import { closeRun, failRun, openRunCounts, settleEpisode } from "./settle";

/** The paper's measures over a run's finished episodes (lib/stats/measures.ts paperMeasures). */
export interface EvalSummary {
  run: string;
  episodes: number;
  solved: number;
  successRate: number;
  meanTurns: number;
  /** Null when no episode says whether its actions executed. */
  errorRate: number | null;
}

/** The summary with the episodes that ended in an error (a provider or sandbox failure). */
export type RunSummary = EvalSummary & { providerErrors: number };

/** A Run row's progress counts: tasks finished, solved, ended in an error. */
export interface RunCounts {
  done: number;
  solved: number;
  errors: number;
}

/** What a batch run needs from the store. */
export interface RunStore {
  /**
   * The run with this name, created when new. An existing run with another configuration is a
   * ConflictError. Episodes it left running (a crash) are marked interrupted.
   */
  openRun(name: string, config: RunIdentity, total: number): Promise<{ id: string; resumed: boolean }>;
  /** Ids of the tasks that already have a finished episode (submitted, abandoned or error) in the run. */
  finishedTaskIds(runId: string): Promise<Set<string>>;
  updateRun(
    runId: string,
    patch: { status?: "running" | "done" | "cancelled" | "failed"; total?: number; done?: number; solved?: number; errors?: number },
  ): Promise<void>;
  /** Adds one finished episode to the run's counts (atomically) and returns them. */
  addEpisode(runId: string, episode: { solved: boolean; errored: boolean }): Promise<RunCounts>;
  summarizeRun(runId: string, name: string): Promise<RunSummary>;
}

export interface RunEvalOptions {
  runName: string;
  config: RunIdentity;
  tasks: Task[];
  model: ResolvedModel;
  recorder: EpisodeRecorder;
  store: RunStore;
  concurrency: number;
  /** Aborting stops cleanly: running episodes end interrupted, finished ones are kept. */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  envOptions?: EnvironmentOptions;
  stream?: boolean;
  /** Called after each episode with counts so far (the progress bar). */
  onProgress?: (p: { done: number; total: number; solved: number; errors: number; skipped: number }) => void;
  onEpisode?: (task: Task, outcome: EpisodeOutcome) => void;
  /** Called once the run is open in the store, before any episode starts. */
  onStart?: (runId: string) => void;
  /**
   * Called as each episode starts, with its controller; what it returns receives the episode's
   * events (the server registers the episode so it can be watched and taken over).
   */
  watch?: (task: Task, controller: EpisodeController) => EpisodeWatch;
}

/** What a watcher of one episode of a run gets: its events, then the end (also when it threw). */
export interface EpisodeWatch {
  onEvent(event: AgentEvent): void;
  end(): void;
}

export interface RunEvalResult {
  runId: string;
  summary: RunSummary;
  /** Tasks skipped because a previous run of the same name finished them. */
  skipped: number;
  /** Episodes run now. */
  ran: number;
  interrupted: boolean;
  outcomes: EpisodeOutcome[];
}

/**
 * Runs a model over tasks with a bounded number of episodes at once, recording every episode in
 * a named Run. Running it again with the same name skips the tasks already finished.
 */
export async function runEval(options: RunEvalOptions): Promise<RunEvalResult> {
  const { store, config } = options;
  const { id: runId } = await store.openRun(options.runName, config, options.tasks.length);
  const finished = await store.finishedTaskIds(runId);
  const todo = options.tasks.filter((t) => !finished.has(t.id));
  const skipped = options.tasks.length - todo.length;
  let counts = await openRunCounts(store, { id: runId, name: options.runName, total: options.tasks.length, finished: finished.size });
  await store.updateRun(runId, { status: "running" });
  options.onStart?.(runId);

  const controllers = new Set<EpisodeController>();
  const onAbort = () => {
    for (const c of controllers) c.stop("interrupted");
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const outcomes: EpisodeOutcome[] = [];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!options.signal?.aborted && !failed) {
      const task = todo[next++];
      if (!task) return;
      const controller = new EpisodeController();
      controllers.add(controller);
      const watch = options.watch?.(task, controller);
      try {
        const outcome = await runEpisode({
          task,
          model: options.model,
          policy: config.policy,
          maxTurns: config.turns,
          handicap: config.handicap,
          refineTurns: config.refineTurns,
          recorder: options.recorder,
          controller,
          envOptions: { ...options.envOptions, ...(config.profile ? { profile: config.profile } : {}) },
          retry: options.retry,
          stream: options.stream,
          runId,
          mode: "eval",
          onEvent: watch ? (e) => watch.onEvent(e) : undefined,
        });
        outcomes.push(outcome);
        counts = (await settleEpisode(store, runId, outcome)) ?? counts;
        options.onEpisode?.(task, outcome);
        options.onProgress?.({ ...counts, total: options.tasks.length, skipped });
      } finally {
        controllers.delete(controller);
        watch?.end();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, todo.length || 1)) }, worker));
  } catch (err) {
    // The store failed under an episode: stop the others and leave the run marked failed.
    failed = true;
    onAbort();
    await failRun(store, runId);
    throw err;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  const interrupted = Boolean(options.signal?.aborted);
  const summary = await closeRun(store, { id: runId, name: options.runName }, () => (interrupted ? "cancelled" : "done"));
  return { runId, summary, skipped, ran: outcomes.length, interrupted, outcomes };
}
