import "server-only";
import { UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import { dbRunStore } from "@/lib/runs/run-store";
import { closeRun, settleEpisode } from "@/lib/runs/settle";
import { classifyProviderError } from "@/lib/agent/call-model";
import { resolveModel, type ResolvedModel } from "@/lib/agent/models";
import { runEpisode } from "@/lib/agent/run-episode";
import type { AgentEvent, EpisodeOutcome } from "@/lib/episodes/agent-event";
import { config } from "@/lib/config";
import { EpisodeController } from "@/lib/episodes/controller";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { markRunTaskEpisodesInterrupted } from "@/lib/db/run-episodes";
import { getRunById } from "@/lib/db/runs";
import type { EnvironmentOptions } from "@/lib/env/types";
import { storedRunConfigSchema, type StoredRunConfig } from "@/lib/runs/launch-options";
import { openRedis } from "./connection";
import { evalJobSchema, QUEUE_PREFIX, settledKey, type EvalJob } from "./eval-queue";
import { limitedModel, modelRateLimiter, type CallErrors } from "./rate-limit";

/**
 * `icstudio worker`: takes episode jobs from the queue and plays each with the same per-task entry
 * point as `icstudio eval` and the runs page (runEpisode, recording into the store through
 * dbRecorder). A job is done once:
 * - the worker holds a lease on it (BullMQ's lock, IC_QUEUE_LOCK_MS, renewed while it runs); a
 *   worker that dies or stalls loses it, BullMQ's stalled-job check puts the job back, and the
 *   next worker marks the episode left running interrupted (kept, with the reason) before it
 *   plays the task again;
 * - a worker that notices it lost the lease stops its episode (interrupted), so two workers never
 *   both finish a task;
 * - a task the Run already finished (a worker died between storing the end and acking the job)
 *   is not played again.
 * An episode that failed on a provider error that may pass (rate limit, 5xx, timeout, nothing
 * listening) is kept as interrupted and the job is tried again with exponential back-off; on its
 * last try the error stands. Model calls take tokens from the per-model limiter shared by all
 * workers (lib/runs/queue/rate-limit.ts).
 */

export interface WorkerOptions {
  url: string;
  concurrency: number;
  envOptions?: EnvironmentOptions;
  /** Called as each job starts and ends (the CLI's log lines, tests, the bench). */
  onJob?: (e: { type: "start"; job: EvalJob } | { type: "end"; job: EvalJob; outcome: EpisodeOutcome | null; note?: string }) => void;
  /** Each running episode's events (the bench's first-action time). */
  onEvent?: (job: EvalJob, event: AgentEvent) => void;
}

export interface RunningWorker {
  /** Stops taking jobs; running episodes end interrupted and their jobs go back to the queue. */
  close(): Promise<void>;
  /** Resolves once the worker is connected and waiting for jobs. */
  ready: Promise<void>;
}

interface RunContext {
  config: StoredRunConfig;
  tasks: Map<string, Task>;
  models: Map<string, ResolvedModel>;
}

const LEASE_LOST = "the worker running it lost its lease on the job (it stalled or died); the task runs again";
const SHUTDOWN = "the worker running it shut down; the task goes back to the queue";

/** A provider error worth another try later (the classification the model call uses). */
function mayPass(err: unknown): boolean {
  return err !== undefined && classifyProviderError(err, false).retryable;
}

export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const c = config();
  const redis = openRedis(o.url);
  const limiter = modelRateLimiter(redis, `${QUEUE_PREFIX}:${c.queueName}`);
  const runs = new Map<string, Promise<RunContext>>();
  let closing = false;

  const contextOf = (runId: string): Promise<RunContext> => {
    let p = runs.get(runId);
    if (!p) {
      p = (async () => {
        const run = await getRunById({ id: runId });
        if (!run) throw new UnrecoverableError(`run ${runId} is not in the store (IC_DB): does this worker use the same store as the one that enqueued it?`);
        const parsed = storedRunConfigSchema.safeParse(JSON.parse(run.config));
        if (!parsed.success) throw new UnrecoverableError(`run ${run.name}: the stored configuration cannot be read: ${parsed.error.issues[0]!.message}`);
        const tasks = new Map(loadDataset(parsed.data.dataset).map((t) => [t.id, t]));
        return { config: parsed.data, tasks, models: new Map() };
      })();
      p.catch(() => runs.delete(runId));
      runs.set(runId, p);
    }
    return p;
  };

  const modelOf = (ctx: RunContext, job: EvalJob): ResolvedModel => {
    const key = job.adhoc ? `${job.adhoc.baseURL}\0${job.adhoc.model ?? ""}` : ctx.config.model;
    let m = ctx.models.get(key);
    if (!m) {
      m = job.adhoc ? resolveModel(job.adhoc.model, { adhoc: { baseURL: job.adhoc.baseURL, model: job.adhoc.model } }) : resolveModel(ctx.config.model);
      ctx.models.set(key, m);
    }
    return m;
  };

  /**
   * The queue's part of settling (lib/runs/settle.ts holds the rest): a task whose job ended for
   * good joins the run's settled set, so exactly one worker sees the run complete and closes it.
   */
  const settleTask = async (data: { runId: string; taskId: string }): Promise<void> => {
    const key = settledKey(c.queueName, data.runId);
    await redis.sadd(key, data.taskId);
    const [settled, run] = await Promise.all([redis.scard(key), getRunById({ id: data.runId })]);
    // The worker that settles a run's last task ends it: done when every task has a finished
    // episode, failed when some job failed for good.
    if (run && run.status === "running" && settled >= run.total) {
      await closeRun(dbRunStore(), run, (s) => (s.episodes >= run.total ? "done" : "failed"));
    }
  };

  /** Plays the job's task; a job that ends for good (done, skipped, or failed past its tries) settles its task. */
  const processJob = async (job: Job, token?: string, signal?: AbortSignal): Promise<{ episodeId: string | null; status: string }> => {
    try {
      const r = await play(job, token, signal);
      await settleTask(job.data as EvalJob);
      return r;
    } catch (err) {
      const final =
        err instanceof UnrecoverableError || (!(err instanceof WaitingError) && !signal?.aborted && job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
      if (final && typeof job.data?.runId === "string") await settleTask(job.data as EvalJob).catch(() => {});
      throw err;
    }
  };

  const play = async (job: Job, _token?: string, signal?: AbortSignal): Promise<{ episodeId: string | null; status: string }> => {
    const parsed = evalJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`not an episode job: ${parsed.error.issues[0]!.message}`);
    const data = parsed.data;
    const ctx = await contextOf(data.runId);
    const task = ctx.tasks.get(data.taskId);
    if (!task) throw new UnrecoverableError(`task ${data.taskId} is not in dataset ${ctx.config.dataset} here`);
    const run = await getRunById({ id: data.runId });
    if (!run || run.status === "cancelled") {
      o.onJob?.({ type: "end", job: data, outcome: null, note: "run cancelled" });
      return { episodeId: null, status: "skipped: run cancelled" };
    }
    const store = dbRunStore();
    if ((await store.finishedTaskIds(data.runId)).has(data.taskId)) {
      o.onJob?.({ type: "end", job: data, outcome: null, note: "already finished" });
      return { episodeId: null, status: "skipped: already finished" };
    }
    // A worker before this one lost the job mid-episode: keep its episode, marked.
    await markRunTaskEpisodesInterrupted({ runId: data.runId, taskId: data.taskId, reason: LEASE_LOST });
    o.onJob?.({ type: "start", job: data });

    const errors: CallErrors = { last: undefined };
    const model = limitedModel(modelOf(ctx, data), limiter, errors);
    const controller = new EpisodeController();
    const onAbort = () => controller.stop("interrupted");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    let retryLater: string | null = null;
    const base = dbRecorder();
    const recorder: EpisodeRecorder = {
      startEpisode: (s) => base.startEpisode(s),
      appendTurn: (id, t) => base.appendTurn(id, t),
      reopenEpisode: (id) => base.reopenEpisode(id),
      async finishEpisode(id, end) {
        if (end.status === "error" && !lastTry && !closing && mayPass(errors.last)) {
          retryLater = end.errorReason ?? "provider error";
          const reason = `${retryLater} (tried again later by the queue: try ${job.attemptsMade + 1} of ${job.opts.attempts})`;
          await base.finishEpisode(id, { ...end, status: "interrupted", errorReason: reason });
          return;
        }
        if (end.status === "interrupted") {
          await base.finishEpisode(id, { ...end, errorReason: closing ? SHUTDOWN : signal?.aborted ? LEASE_LOST : end.errorReason });
          return;
        }
        await base.finishEpisode(id, end);
      },
    };
    let outcome: EpisodeOutcome;
    try {
      outcome = await runEpisode({
        task,
        model,
        policy: ctx.config.policy,
        maxTurns: ctx.config.turns,
        handicap: ctx.config.handicap,
        refineTurns: ctx.config.refineTurns,
        recorder,
        controller,
        envOptions: { ...o.envOptions, ...(ctx.config.profile ? { profile: ctx.config.profile } : {}) },
        stream: data.stream,
        runId: data.runId,
        mode: "eval",
        onEvent: o.onEvent ? (e) => o.onEvent!(data, e) : undefined,
      });
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    o.onJob?.({ type: "end", job: data, outcome, note: retryLater ? `provider error, tried again later: ${retryLater}` : undefined });
    if (outcome.status === "interrupted") {
      if (closing) {
        // Back to the queue at once, for another worker (not counted as a failed try).
        await job.moveToWait(_token);
        throw new WaitingError();
      }
      throw new Error(LEASE_LOST);
    }
    if (retryLater) throw new Error(retryLater);
    await settleEpisode(store, data.runId, outcome);
    return { episodeId: outcome.episodeId, status: outcome.status };
  };

  // Open the store (migrations), load the environments and the sandbox backend before the first
  // job: each can block the event loop for seconds on a busy machine (synchronous SQLite, module
  // compilation), long enough to miss a lease renewal and lose the job to a false stall.
  const { openStore } = await import("@/lib/db/startup");
  await openStore();
  await import("@/lib/env/index");
  const { getSandboxBackend } = await import("@/lib/sandbox");
  await getSandboxBackend(o.envOptions?.backend ?? c.backend);
  const worker = new Worker(c.queueName, processJob, {
    connection: redis,
    prefix: QUEUE_PREFIX,
    concurrency: o.concurrency,
    lockDuration: c.queueLockMs,
    stalledInterval: c.queueLockMs,
    // A stall is a lost worker, not the task's fault: let it move on a few times before failing the job.
    maxStalledCount: 5,
    autorun: false,
  });
  worker.on("lockRenewalFailed", (ids) => {
    for (const id of ids) worker.cancelJob(id, LEASE_LOST);
  });
  worker.on("error", () => {}); // connection blips: the client reconnects; a lost lease is handled above
  void worker.run();
  const ready = worker.waitUntilReady().then(() => {});
  return {
    ready,
    async close() {
      closing = true;
      worker.cancelAllJobs(SHUTDOWN);
      await worker.close();
      redis.disconnect();
    },
  };
}
