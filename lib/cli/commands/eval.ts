import { z } from "zod";
import { backendSchema, defineCommand, log, printJson } from "../command";
import { ProgressBar } from "../progress";
import { BadInputError } from "@/lib/errors";
import { envNameSchema } from "@/lib/datasets/types";
import { policyNameSchema } from "@/lib/agent/policies/types";
import { profileNameSchema } from "@/lib/env/profiles";

const flagsSchema = z.object({
  env: envNameSchema.describe("the environment"),
  dataset: z.string().min(1).optional().describe("a dataset name or task file (default demo-<env>)").meta({ value: "NAME" }),
  model: z
    .string()
    .min(1)
    .optional()
    .describe("a model from models.config.json (`icstudio models`); with --base-url, the model name to request")
    .meta({ value: "ID" }),
  policy: policyNameSchema.default("try-again").describe("the policy"),
  turns: z.coerce.number().int().min(1).max(100).default(10).describe("turn limit"),
  offset: z.coerce.number().int().min(0).default(0).describe("start at the K-th task (0-based)").meta({ value: "K" }),
  limit: z.coerce.number().int().min(1).optional().describe("at most N tasks from there"),
  sample: z.coerce.number().int().min(1).optional().describe("a random sample of N tasks"),
  seed: z.coerce.number().int().default(1).describe("the sample's seed").meta({ value: "S" }),
  tasks: z.string().optional().describe("only these task ids").meta({ value: "a,b,c" }),
  concurrency: z.coerce.number().int().min(1).default(4).describe("episodes at once, at most IC_MAX_SANDBOXES (16 unless set)"),
  run: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "the Run to record into (default <dataset>.<model>.<policy>.<turns>); the same name again\nresumes it: finished tasks are skipped, interrupted ones run again",
    )
    .meta({ value: "NAME" }),
  "base-url": z
    .string()
    .url()
    .optional()
    .describe("an OpenAI-compatible endpoint (vLLM, Ollama, OpenRouter...) without editing the config")
    .meta({ value: "URL" }),
  "api-key": z.string().optional().describe("its key").meta({ value: "KEY" }),
  handicap: z.boolean().default(false).describe("give the SQL schema up front"),
  refine: z.coerce.number().int().min(0).max(20).default(0).describe("plan-solve: refine turns after the plan"),
  backend: backendSchema.optional().describe("sandbox backend"),
  profile: profileNameSchema
    .default("studio")
    .describe(
      "intercode: InterCode's loop as it ran, what its models were shown and how it scored\n(docs/profiles.md); the run's default name gains .intercode",
    ),
  stream: z.boolean().default(false).describe("stream replies from the model"),
  json: z.boolean().default(false).describe("print only {run, episodes, solved, successRate, meanTurns, errorRate} on stdout"),
  queue: z
    .string()
    .min(1)
    .optional()
    .describe(
      "enqueue one job per task on this Redis (BullMQ) instead of running them: `icstudio worker`\n" +
        "processes play them, on any machine reaching the queue and the store (IC_DB); docs/scale-out.md",
    )
    .meta({ value: "URL" }),
  watch: z
    .boolean()
    .default(false)
    .describe(
      "with --queue: follow the run until it ends (done/total, solved, errors, rate, ETA), then print\nthe summary; a run already on the queue is only followed",
    ),
  rate: z.coerce.number().int().min(1).optional().describe("with --queue: at most N model calls a minute for this model, shared by every worker"),
});

function pct(x: number | null): string {
  if (x === null) return "–";
  return `${(x * 100).toFixed(2)}%`;
}

export default defineCommand({
  name: "eval",
  summary: "Run a model under a policy over a dataset; record every episode in a Run; print the paper's measures.",
  flags: flagsSchema,
  help: "Ctrl+C stops cleanly: finished episodes are kept, running ones are marked interrupted.",
  async run({ values: f }) {
    const { prepareRun } = await import("@/lib/runs/prepare-run");
    const { config: settings } = await import("@/lib/config");
    const { runEval } = await import("@/lib/runs/run-eval");
    const { dbRecorder } = await import("@/lib/episodes/db-recorder");
    const { dbRunStore } = await import("@/lib/runs/run-store");

    if (f["api-key"] && !f["base-url"]) throw new BadInputError("--api-key needs --base-url", "--api-key");
    if (!f.queue && (f.watch || f.rate)) throw new BadInputError("needs --queue", f.watch ? "--watch" : "--rate");
    if (f.queue && f["api-key"]) {
      throw new BadInputError(
        "a key is not sent through the queue: give the workers the model in models.config.json (apiKeyEnv) or the models page",
        "--api-key",
      );
    }
    if (f.queue) {
      const { assertQueueReachable } = await import("@/lib/runs/queue/connection");
      await assertQueueReachable(f.queue, "--queue");
    }
    if ([f.tasks, f.sample].filter((x) => x !== undefined).length > 1) throw new BadInputError("give --sample or --tasks, not both", "--tasks");
    const selection = f.tasks
      ? {
          kind: "list" as const,
          tasks: f.tasks
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        }
      : f.sample
        ? { kind: "sample" as const, limit: f.sample, seed: f.seed }
        : { kind: "slice" as const, offset: f.offset, limit: f.limit };
    const flag: Record<string, string> = { "selection.offset": "--offset", "selection.limit": f.sample ? "--sample" : "--limit", "selection.tasks": "--tasks" };
    const { runName, config, tasks, model } = prepareRun(
      {
        env: f.env,
        dataset: f.dataset ?? `demo-${f.env}`,
        selection,
        model: f.model ?? (f["base-url"] ? "default" : ""),
        policy: f.policy,
        turns: f.turns,
        concurrency: f.concurrency,
        handicap: f.handicap,
        refineTurns: f.refine,
        profile: f.profile,
        name: f.run,
      },
      {
        maxSandboxes: settings().maxSandboxes,
        launchedFrom: "cli",
        adhoc: f["base-url"] ? { baseURL: f["base-url"], apiKey: f["api-key"], model: f.model } : undefined,
        field: (name) => flag[name] ?? `--${name}`,
      },
    );

    // A task sealed by an open study or an unsubmitted baseline episode: refused before anything starts.
    const { assertRunUnsealed } = await import("@/lib/studies/baseline-seal");
    await assertRunUnsealed(
      f.env,
      f.dataset ?? `demo-${f.env}`,
      tasks.map((t) => t.id),
    );

    if (f.queue) {
      return queueRun(f, { runName, config, tasks, model });
    }

    const abort = new AbortController();
    let sigints = 0;
    const onSigint = () => {
      sigints++;
      if (sigints > 1) process.exit(130);
      log("\nstopping: finishing the bookkeeping (Ctrl+C again to quit at once)");
      abort.abort();
    };
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigint);

    const bar = new ProgressBar(`eval ${runName}`, tasks.length);
    try {
      const result = await runEval({
        runName,
        config,
        tasks,
        model,
        recorder: dbRecorder(),
        store: dbRunStore(),
        concurrency: f.concurrency,
        signal: abort.signal,
        envOptions: f.backend ? { backend: f.backend } : undefined,
        stream: f.stream,
        onProgress: (p) => bar.update(p.done, `solved ${p.solved} · errors ${p.errors}${p.skipped ? ` · resumed ${p.skipped}` : ""}`),
      });
      printSummary(result.summary, config, f.json, `${result.ran} run, ${result.skipped} already done${result.interrupted ? ", interrupted" : ""}`);
      return result.interrupted ? 130 : 0;
    } finally {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigint);
      const { closeStore } = await import("@/lib/db/client");
      const { shutdownSandboxBackends } = await import("@/lib/sandbox");
      await Promise.all([closeStore(), shutdownSandboxBackends()]);
    }
  },
});

type Flags = z.infer<typeof flagsSchema>;
type Summary = import("@/lib/runs/run-eval").EvalSummary & { providerErrors: number };
type StoredConfig = import("@/lib/runs/launch-options").StoredRunConfig;

/** The run's measures: JSON on stdout with --json, else a two-column table. */
function printSummary(s: Summary, config: StoredConfig, json: boolean, thisTime: string): void {
  if (json) {
    printJson({ run: s.run, episodes: s.episodes, solved: s.solved, successRate: s.successRate, meanTurns: s.meanTurns, errorRate: s.errorRate });
    return;
  }
  const rows: [string, string][] = [
    ["run", s.run],
    ["model", `${config.model} · ${config.policy} · ${config.turns} turns${config.handicap ? " · handicap" : ""}`],
    ["episodes", String(s.episodes)],
    ["solved", `${s.solved} (${pct(s.successRate)})`],
    ["mean turns", s.meanTurns.toFixed(2)],
    ["error rate", pct(s.errorRate)],
    ["provider errors", String(s.providerErrors)],
    ["this time", thisTime],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n") + "\n");
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
      : `${s}s`;
}

/**
 * `eval --queue`: enqueue the run's tasks (or, with --watch, follow a run already on the queue),
 * then with --watch print progress until the run ends. Exit 0 once enqueued (without --watch) or
 * done; 1 when the run failed; 130 when the watch was stopped (the run goes on).
 */
async function queueRun(f: Flags, p: import("@/lib/runs/prepare-run").PreparedRun): Promise<number> {
  const { enqueueRun, watchRun, isQueuedRun } = await import("@/lib/runs/queue/eval-queue");
  const { redactQueueUrl } = await import("@/lib/runs/queue/connection");
  const { getRunByName } = await import("@/lib/db/runs");
  const { dbRunStore } = await import("@/lib/runs/run-store");
  const { closeStore } = await import("@/lib/db/client");
  try {
    const existing = await getRunByName({ name: p.runName });
    let runId: string;
    let thisTime: string;
    if (existing && isQueuedRun(existing) && f.watch) {
      runId = existing.id;
      thisTime = "followed a run already on the queue";
      log(`run ${p.runName} is already on the queue (${existing.done}/${existing.total} done): following it`);
    } else {
      const adhoc = f["base-url"] ? { baseURL: f["base-url"], model: f.model } : undefined;
      const r = await enqueueRun(p, { url: f.queue!, adhoc, stream: f.stream, ratePerMinute: f.rate });
      runId = r.runId;
      thisTime = `${r.enqueued} enqueued, ${r.skipped} already done`;
      log(
        `run ${p.runName} (${r.runId}): ${r.enqueued} tasks enqueued on ${redactQueueUrl(f.queue!)}${r.skipped ? `, ${r.skipped} already done` : ""}; start workers with: icstudio worker --queue ${redactQueueUrl(f.queue!)}`,
      );
      if (!f.watch) {
        if (f.json) printJson({ run: p.runName, runId: r.runId, enqueued: r.enqueued, skipped: r.skipped });
        return 0;
      }
    }
    const abort = new AbortController();
    const onSigint = () => abort.abort();
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigint);
    const tty = Boolean(process.stderr.isTTY);
    let last = "";
    let lastAt = 0;
    let run;
    try {
      run = await watchRun(
        runId,
        ({ run, perMinute, etaMs }) => {
          const counts = `${run.done}/${run.total} done · solved ${run.solved} · errors ${run.errors}`;
          const line = `watch ${run.name}: ${counts} · ${perMinute === null ? "–" : perMinute.toFixed(1)}/min · ETA ${etaMs === null ? "–" : duration(etaMs)}${run.status === "running" ? "" : ` · ${run.status}`}`;
          const now = Date.now();
          // Not a terminal: a line when the counts change, else one every 10 s.
          if (tty) process.stderr.write(`\r\x1b[2K${line}${run.status === "running" ? "" : "\n"}`);
          else if (counts !== last || now - lastAt > 10_000 || run.status !== "running") {
            process.stderr.write(line + "\n");
            lastAt = now;
          }
          last = counts;
        },
        { signal: abort.signal },
      );
    } finally {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigint);
    }
    if (abort.signal.aborted) {
      log(`stopped watching; run ${run.name} goes on in the workers`);
      return 130;
    }
    printSummary(await dbRunStore().summarizeRun(run.id, run.name), p.config, f.json, thisTime);
    return run.status === "done" ? 0 : 1;
  } finally {
    await closeStore();
  }
}
