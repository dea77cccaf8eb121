import "server-only";
import { Queue } from "bullmq";
import { z } from "zod";
import { dbRunStore } from "@/lib/runs/run-store";
import { closeRun, failRun, openRunCounts } from "@/lib/runs/settle";
import type { RunStore } from "@/lib/runs/run-eval";
import { config } from "@/lib/config";
import { getRunById, getRunByName, markRunQueued, isQueueOwner, queueOwnerOf, type Run } from "@/lib/db/runs";
import { ConflictError } from "@/lib/errors";
import type { PreparedRun } from "@/lib/runs/prepare-run";
import { openRedis, redactQueueUrl } from "./connection";
import { modelRateLimiter } from "./rate-limit";

/**
 * The evaluation queue: `icstudio eval --queue` puts one BullMQ job per task of a Run here, and
 * `icstudio worker` (lib/runs/queue/worker.ts) takes them. The Run row in the store is the record of
 * progress (workers add each finished episode to its counts), so the runs page follows a queued
 * run as it follows a run of another process, and `--watch` reads the same row.
 */

/** BullMQ's key prefix for the Studio's queues. */
export const QUEUE_PREFIX = "icstudio";

/** One job: one task of one Run. An ad-hoc endpoint (`--base-url`) travels with it; a key never does. */
export const evalJobSchema = z.object({
  runId: z.string().min(1),
  taskId: z.string().min(1),
  adhoc: z.object({ baseURL: z.string().url(), model: z.string().optional() }).optional(),
  stream: z.boolean().default(false),
  /** When it was enqueued (ms since the epoch), for the enqueue-to-first-action figure. */
  enqueuedAt: z.number().int().optional(),
});
export type EvalJob = z.infer<typeof evalJobSchema>;

/** The job id of a task of a run: adding it twice while it waits or runs adds nothing. */
export function evalJobId(runId: string, taskId: string): string {
  // BullMQ ids may not contain ':' (its key separator); task ids like "spider-dev:12" may.
  return `${runId}.${Buffer.from(taskId).toString("base64url")}`;
}

/** The owner a queued run's row carries (the runs page says where the run is). */
export function queueOwner(url: string, name = config().queueName): string {
  return queueOwnerOf(`${redactQueueUrl(url)}#${name}`);
}

/**
 * The Redis set of a run's settled task ids (finished before, done now, or failed for good). Sets
 * are idempotent, so a job played twice (a worker died before acking it) counts once; the worker
 * that brings it to the run's total ends the run.
 */
export function settledKey(queueName: string, runId: string): string {
  return `${QUEUE_PREFIX}:${queueName}:settled:${runId}`;
}

/** Whether a run is handed to a queue and not over. */
export function isQueuedRun(run: Pick<Run, "status" | "owner">): boolean {
  return run.status === "running" && isQueueOwner(run.owner);
}

export interface EnqueueResult {
  runId: string;
  /** Jobs added now. */
  enqueued: number;
  /** Tasks a previous attempt of the same run already finished. */
  skipped: number;
}

export interface EnqueueOptions {
  url: string;
  adhoc?: { baseURL: string; model?: string };
  stream?: boolean;
  /** Requests per minute for the run's model, shared by every worker (0 or absent: leave as set). */
  ratePerMinute?: number;
  store?: RunStore;
}

/**
 * Opens (or resumes) the Run in the store and adds one job per task not yet finished, with the
 * retry policy for provider errors (IC_QUEUE_ATTEMPTS tries, exponential back-off from
 * IC_QUEUE_BACKOFF_MS). The run is then owned by the queue: running until a worker finishes its
 * last task.
 * @throws ConflictError when the run is already on a queue (follow it with --watch), or exists
 * with another configuration.
 */
export async function enqueueRun(p: PreparedRun, o: EnqueueOptions): Promise<EnqueueResult> {
  const store = o.store ?? dbRunStore();
  const existing = await getRunByName({ name: p.runName });
  if (existing && isQueuedRun(existing)) {
    throw new ConflictError(`run ${JSON.stringify(p.runName)} is already on the queue (${existing.done}/${existing.total} done); follow it with --watch`);
  }
  const { id: runId } = await store.openRun(p.runName, p.config, p.tasks.length);
  const finished = await store.finishedTaskIds(runId);
  const todo = p.tasks.filter((t) => !finished.has(t.id));
  await openRunCounts(store, { id: runId, name: p.runName, total: p.tasks.length, finished: finished.size });
  const c = config();
  const redis = openRedis(o.url);
  const queue = new Queue(c.queueName, { connection: redis, prefix: QUEUE_PREFIX });
  try {
    const settled = settledKey(c.queueName, runId);
    await redis.del(settled);
    if (finished.size) await redis.sadd(settled, ...finished);
    await redis.expire(settled, 30 * 24 * 3600);
    if (o.ratePerMinute) await modelRateLimiter(redis, `${QUEUE_PREFIX}:${c.queueName}`).setLimit(p.model.info.id, o.ratePerMinute);
    if (!todo.length) {
      await closeRun(store, { id: runId, name: p.runName }, () => "done");
      return { runId, enqueued: 0, skipped: finished.size };
    }
    // Owned by the queue before the first job exists: the worker that settles the last task ends it.
    await markRunQueued({ id: runId, owner: queueOwner(o.url, c.queueName) });
    const now = Date.now();
    try {
      await queue.addBulk(
        todo.map((t) => ({
          name: "episode",
          data: { runId, taskId: t.id, adhoc: o.adhoc, stream: o.stream ?? false, enqueuedAt: now } satisfies EvalJob,
          opts: {
            jobId: evalJobId(runId, t.id),
            attempts: c.queueAttempts,
            backoff: { type: "exponential", delay: c.queueBackoffMs },
            removeOnComplete: true,
            // A resumed run re-adds a failed task under the same id: nothing may keep it taken.
            removeOnFail: true,
          },
        })),
      );
    } catch (err) {
      await failRun(store, runId);
      throw err;
    }
  } finally {
    await queue.close();
    redis.disconnect();
  }
  return { runId, enqueued: todo.length, skipped: finished.size };
}

/** What `--watch` prints each tick. */
export interface WatchTick {
  run: Run;
  /** Episodes a minute since watching began (null until one ended). */
  perMinute: number | null;
  /** Time left at that rate, ms (null until known). */
  etaMs: number | null;
}

/**
 * Follows a queued run from the store until it is over (done, failed or cancelled) or `signal`
 * aborts, calling `onTick` every `intervalMs`. Returns the run as it ended.
 */
export async function watchRun(runId: string, onTick: (t: WatchTick) => void, options: { intervalMs?: number; signal?: AbortSignal } = {}): Promise<Run> {
  const interval = options.intervalMs ?? 1000;
  let first: { at: number; done: number } | null = null;
  for (;;) {
    const run = await getRunById({ id: runId });
    if (!run) throw new ConflictError(`run ${runId} was removed while being watched`);
    const now = Date.now();
    first ??= { at: now, done: run.done };
    const gained = run.done - first.done;
    const perMinute = gained > 0 ? (gained / (now - first.at)) * 60_000 : null;
    const etaMs = perMinute ? ((run.total - run.done) / perMinute) * 60_000 : null;
    onTick({ run, perMinute, etaMs });
    if (run.status !== "running" || options.signal?.aborted) return run;
    await new Promise<void>((resolve) => {
      const onAbort = () => (clearTimeout(t), resolve());
      const t = setTimeout(() => (options.signal?.removeEventListener("abort", onAbort), resolve()), interval);
      options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
