import { z } from "zod";
import { defineCommand, log, parseFlags, printJson } from "../command";
import { ProgressBar } from "../progress";
import { BadInputError } from "@/lib/errors";
import { envNameSchema } from "@/lib/datasets/types";
import { policyNameSchema } from "@/lib/agent/policies/types";
import { profileNameSchema } from "@/lib/env/profiles";

const flagsSchema = z.object({
  env: envNameSchema,
  dataset: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  policy: policyNameSchema.default("try-again"),
  turns: z.coerce.number().int().min(1).max(100).default(10),
  limit: z.coerce.number().int().min(1).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  sample: z.coerce.number().int().min(1).optional(),
  seed: z.coerce.number().int().default(1),
  tasks: z.string().optional(),
  concurrency: z.coerce.number().int().min(1).default(4),
  run: z.string().min(1).max(200).optional(),
  "base-url": z.string().url().optional(),
  "api-key": z.string().optional(),
  handicap: z.boolean().default(false),
  refine: z.coerce.number().int().min(0).max(20).default(0),
  backend: z.enum(["docker", "local", "auto"]).optional(),
  stream: z.boolean().default(false),
  json: z.boolean().default(false),
  profile: profileNameSchema.default("studio"),
  queue: z.string().min(1).optional(),
  watch: z.boolean().default(false),
  rate: z.coerce.number().int().min(1).optional(),
});

function pct(x: number | null): string {
  if (x === null) return "–";
  return `${(x * 100).toFixed(2)}%`;
}

export default defineCommand({
  name: "eval",
  summary: "Run a model under a policy over a dataset; record every episode in a Run; print the paper's measures.",
  usage:
    "eval --env sql --dataset spider-dev --model <id> [--policy try-again] [--turns 10] [--offset K] [--limit N]\n" +
    "       [--sample N --seed S] [--tasks a,b,c]\n" +
    "       [--concurrency 4] [--run NAME] [--base-url URL --api-key KEY] [--handicap] [--refine N] [--profile intercode|studio] [--json]\n" +
    "       [--queue redis://host:6379 [--watch] [--rate N]]",
  help: [
    "--env ENV          bash | sql | python | ctf",
    "--dataset NAME     a dataset name or task file (default demo-<env>)",
    "--model ID         a model from models.config.json (`icstudio models`); with --base-url, the model name to request",
    "--policy P         single-turn | try-again | react | plan-solve (default try-again)",
    "--turns N          turn limit (default 10)",
    "--offset K         start at the K-th task (0-based);  --limit N  at most N tasks from there",
    "--sample N         a random sample of N tasks (--seed S, default 1);  --tasks a,b,c  only these task ids",
    "--concurrency N    episodes at once (default 4; at most IC_MAX_SANDBOXES, default 16)",
    "--run NAME         the Run to record into (default <dataset>.<model>.<policy>.<turns>); the same name again",
    "                   resumes it: finished tasks are skipped, interrupted ones run again",
    "--base-url URL     an OpenAI-compatible endpoint (vLLM, Ollama, OpenRouter...) without editing the config",
    "--api-key KEY      its key",
    "--handicap         give the SQL schema up front",
    "--refine N         plan-solve: refine turns after the plan (default 0)",
    "--backend B        sandbox backend: docker | local | auto",
    "--profile P        studio (default) | intercode: InterCode's loop as it ran, what its models were shown and",
    "                   how it scored (docs/profiles.md); the run's default name gains .intercode",
    "--stream           stream replies from the model",
    "--json             print only {run, episodes, solved, successRate, meanTurns, errorRate} on stdout",
    "--queue URL        enqueue one job per task on this Redis (BullMQ) instead of running them: `icstudio worker`",
    "                   processes play them, on any machine reaching the queue and the store (IC_DB); docs/scale-out.md",
    "--watch            with --queue: follow the run until it ends (done/total, solved, errors, rate, ETA), then print",
    "                   the summary; a run already on the queue is only followed",
    "--rate N           with --queue: at most N model calls a minute for this model, shared by every worker",
    "Ctrl+C stops cleanly: finished episodes are kept, running ones are marked interrupted.",
  ].join("\n"),
  options: {
    env: { type: "string" },
    dataset: { type: "string" },
    model: { type: "string" },
    policy: { type: "string" },
    turns: { type: "string" },
    limit: { type: "string" },
    offset: { type: "string" },
    sample: { type: "string" },
    seed: { type: "string" },
    tasks: { type: "string" },
    concurrency: { type: "string" },
    run: { type: "string" },
    "base-url": { type: "string" },
    "api-key": { type: "string" },
    handicap: { type: "boolean" },
    refine: { type: "string" },
    backend: { type: "string" },
    stream: { type: "boolean" },
    json: { type: "boolean" },
    profile: { type: "string" },
    queue: { type: "string" },
    watch: { type: "boolean" },
    rate: { type: "string" },
  },
  async run({ values }) {
    const f = parseFlags(flagsSchema, values);
    const { prepareRun } = await import("@/lib/runs/prepare-run");
    const { config: settings } = await import("@/lib/config");
    const { runEval } = await import("@/lib/runs/run-eval");
    const { dbRecorder } = await import("@/lib/episodes/db-recorder");
    const { dbRunStore } = await import("@/lib/runs/run-store");

    if (f["api-key"] && !f["base-url"]) throw new BadInputError("--api-key needs --base-url", "--api-key");
    if (!f.queue && (f.watch || f.rate)) throw new BadInputError("needs --queue", f.watch ? "--watch" : "--rate");
    if (f.queue && f["api-key"]) {
      throw new BadInputError("a key is not sent through the queue: give the workers the model in models.config.json (apiKeyEnv) or the models page", "--api-key");
    }
    if (f.queue) {
      const { assertQueueReachable } = await import("@/lib/runs/queue/connection");
      await assertQueueReachable(f.queue, "--queue");
    }
    if ([f.tasks, f.sample].filter((x) => x !== undefined).length > 1) throw new BadInputError("give --sample or --tasks, not both", "--tasks");
    const selection = f.tasks
      ? { kind: "list" as const, tasks: f.tasks.split(",").map((s) => s.trim()).filter(Boolean) }
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
    await assertRunUnsealed(f.env, f.dataset ?? `demo-${f.env}`, tasks.map((t) => t.id));

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
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
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
      log(`run ${p.runName} (${r.runId}): ${r.enqueued} tasks enqueued on ${redactQueueUrl(f.queue!)}${r.skipped ? `, ${r.skipped} already done` : ""}; start workers with: icstudio worker --queue ${redactQueueUrl(f.queue!)}`);
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
