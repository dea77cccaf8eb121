import { z } from "zod";
import { backendSchema, defineCommand, log } from "../command";
import { BadInputError } from "@/lib/errors";

export default defineCommand({
  name: "worker",
  summary: "Take episode jobs from the evaluation queue (`icstudio eval --queue`) and play them into the store (IC_DB).",
  flags: z.object({
    queue: z
      .string()
      .min(1)
      .optional()
      .describe("the Redis server of the queue, redis://host:6379 (default IC_QUEUE); the queue's name is IC_QUEUE_NAME")
      .meta({ value: "URL" }),
    concurrency: z.coerce.number().int().min(1).default(4).describe("episodes at once, at most IC_MAX_SANDBOXES (16 unless set)"),
    backend: backendSchema.optional().describe("sandbox backend (default IC_SANDBOX)"),
    quiet: z.boolean().default(false).describe("no line per episode"),
  }),
  help: [
    "The worker must reach the same store (IC_DB) as the process that enqueued the run, and the same",
    "datasets. Ctrl+C (or SIGTERM) stops it: running episodes end interrupted and their jobs go back to",
    "the queue for another worker. A worker that dies without that loses its jobs after IC_QUEUE_LOCK_MS.",
  ].join("\n"),
  async run({ values: f }) {
    const { config } = await import("@/lib/config");
    const settings = config();
    const url = f.queue ?? settings.queueUrl;
    if (!url) throw new BadInputError("no queue: give --queue redis://host:6379 or set IC_QUEUE", "--queue");
    const where = f.queue ? "--queue" : "IC_QUEUE";
    if (f.concurrency > settings.maxSandboxes) {
      throw new BadInputError(`${f.concurrency} episodes at once is more than the sandbox cap of ${settings.maxSandboxes} (IC_MAX_SANDBOXES)`, "--concurrency");
    }
    const { assertQueueReachable, redactQueueUrl } = await import("@/lib/runs/queue/connection");
    await assertQueueReachable(url, where);
    const { startWorker } = await import("@/lib/runs/queue/worker");
    const { closeStore } = await import("@/lib/db/client");
    const { shutdownSandboxBackends } = await import("@/lib/sandbox");

    const worker = await startWorker({
      url,
      concurrency: f.concurrency,
      envOptions: f.backend ? { backend: f.backend } : undefined,
      onJob: f.quiet
        ? undefined
        : (e) => {
            if (e.type === "start") log(`start ${e.job.taskId} (run ${e.job.runId})`);
            else
              log(
                `end   ${e.job.taskId} (run ${e.job.runId}): ${e.outcome ? `${e.outcome.status}${e.outcome.success ? " solved" : ""}` : "skipped"}${e.note ? ` · ${e.note}` : ""}`,
              );
          },
    });
    await worker.ready;
    log(`worker ${process.pid}: taking jobs from ${redactQueueUrl(url)}#${settings.queueName}, ${f.concurrency} at once (Ctrl+C stops)`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        log("stopping: running episodes end interrupted and go back to the queue");
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    try {
      await worker.close();
    } finally {
      await Promise.all([closeStore(), shutdownSandboxBackends()]);
    }
    return 0;
  },
});
