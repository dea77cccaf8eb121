import { z } from "zod";
import { defineCommand, log, printJson } from "../command";
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
});

function pct(x: number): string {
  return `${(x * 100).toFixed(2)}%`;
}

export default defineCommand({
  name: "eval",
  summary: "Run a model under a policy over a dataset; record every episode in a Run; print the paper's measures.",
  usage:
    "eval --env sql --dataset spider-dev --model <id> [--policy try-again] [--turns 10] [--offset K] [--limit N]\n" +
    "       [--sample N --seed S] [--tasks a,b,c]\n" +
    "       [--concurrency 4] [--run NAME] [--base-url URL --api-key KEY] [--handicap] [--refine N] [--profile intercode|studio] [--json]",
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
  },
  async run({ values }) {
    const parsed = flagsSchema.safeParse(values);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new BadInputError(issue.message, `--${String(issue.path[0] ?? "")}`);
    }
    const f = parsed.data;
    const { prepareRun } = await import("@/lib/runs/prepare-run");
    const { config: settings } = await import("@/lib/config");
    const { runEval } = await import("@/lib/agent/run-eval");
    const { dbRecorder } = await import("@/lib/episodes/db-recorder");
    const { dbRunStore } = await import("@/lib/agent/run-store");

    if (f["api-key"] && !f["base-url"]) throw new BadInputError("--api-key needs --base-url", "--api-key");
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
      const s = result.summary;
      if (f.json) {
        printJson({ run: s.run, episodes: s.episodes, solved: s.solved, successRate: s.successRate, meanTurns: s.meanTurns, errorRate: s.errorRate });
      } else {
        const rows: [string, string][] = [
          ["run", s.run],
          ["model", `${config.model} · ${config.policy} · ${config.turns} turns${config.handicap ? " · handicap" : ""}`],
          ["episodes", String(s.episodes)],
          ["solved", `${s.solved} (${pct(s.successRate)})`],
          ["mean turns", s.meanTurns.toFixed(2)],
          ["error rate", pct(s.errorRate)],
          ["provider errors", String(s.providerErrors)],
          ["this time", `${result.ran} run, ${result.skipped} already done${result.interrupted ? ", interrupted" : ""}`],
        ];
        const w = Math.max(...rows.map(([k]) => k.length));
        process.stdout.write(rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n") + "\n");
      }
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
