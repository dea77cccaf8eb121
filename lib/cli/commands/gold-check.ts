import { z } from "zod";
import { backendSchema, defineCommand, log, printJson } from "../command";
import { ProgressBar } from "../progress";
import { BadInputError } from "@/lib/errors";
import { envNameSchema, type Task } from "@/lib/datasets/types";
import { DEFAULT_PROFILE, profileNameSchema } from "@/lib/env/profiles";
import type { Environment, EnvironmentOptions, StepResult, SubmitResult } from "@/lib/env/types";
import { borrowed } from "@/lib/env/borrowed";
import { fidelityOf } from "@/lib/env/fidelity";
import { memoryRecorder } from "@/lib/episodes/memory-recorder";
import { EpisodeSession, type ActorRef } from "@/lib/episodes/session";
import type { GoldExceptions } from "@/lib/datasets/fs-check";
import type { RewardBreakdown } from "@/lib/reward/types";

/** One task's gold check. */
export interface GoldCheckOutcome {
  taskId: string;
  reward: number;
  reason?: string;
}

/** The report `gold-check --json` prints. */
export interface GoldCheckReport {
  tasks: number;
  perfect: number;
  meanReward: number;
  failures: { taskId: string; reward: number; reason: string }[];
}

/** Why a submission fell short of 1.0, from its breakdown. */
export function failureReason(b: RewardBreakdown, r: SubmitResult): string {
  switch (b.kind) {
    case "bash": {
      const parts: string[] = [];
      if (b.missing.length) parts.push(`paths changed only by gold: ${b.missing.join(", ")}`);
      if (b.extra.length) parts.push(`paths changed only by the agent: ${b.extra.join(", ")}`);
      if (b.wrong.length) parts.push(`paths with different contents: ${b.wrong.join(", ")}`);
      if (b.output < 0.33)
        parts.push(
          `output similarity ${b.output}/0.33 (agent ${JSON.stringify(r.agentObservation.slice(0, 120))} vs gold ${JSON.stringify(r.goldObservation.slice(0, 120))})`,
        );
      return parts.join("; ") || "score below 1";
    }
    case "sql":
      return b.error ? `query failed: ${b.error}` : `row overlap ${b.overlap}, order ${b.order}`;
    case "python": {
      const bad = b.tests.filter((t) => !t.agree);
      return b.error ?? bad.map((t) => `${t.test.slice(0, 100)}: gold ${t.gold}, submitted ${t.agent}${t.detail ? ` (${t.detail})` : ""}`).join("; ");
    }
    case "ctf":
      return `flag ${JSON.stringify(b.submitted)} does not match`;
  }
}

/**
 * Plays one task with its gold solution as the agent's answer: an episode like any other (an
 * EpisodeSession over `env`, recorded in memory), whose actions are what the environment's row of
 * lib/env/fidelity.ts says gold plays. `env` stays open for the caller's next task.
 */
export async function goldCheckTask(env: Environment, task: Task): Promise<GoldCheckOutcome> {
  const play = fidelityOf(task).goldPlay(task);
  const session = await EpisodeSession.open({
    task,
    recorder: memoryRecorder(),
    start: { player: { kind: "human", annotator: null }, turnLimit: 2, mode: "play", feedback: "none" },
    environment: async () => borrowed(env),
    storeAt: "open",
  });
  await session.ready();
  let step: StepResult | undefined;
  if (play.action !== undefined) {
    ({ step } = await session.act(play.action, GOLD_PLAYER));
    if (play.failure && !step.ok) return { taskId: task.id, reward: 0, reason: `${play.failure}: ${step.observation.slice(0, 300)}` };
  }
  const { result } = await session.submit(play.submitArg(step));
  const out: GoldCheckOutcome = { taskId: task.id, reward: result.reward };
  if (result.reward < 1) out.reason = failureReason(result.breakdown, result);
  return out;
}

/** Who plays gold (the in-memory record keeps the turn only for the check). */
const GOLD_PLAYER: ActorRef = { actor: "human", source: "api" };

/**
 * The documented reason, if any, why the gold of an NL2Bash task cannot score 1.0 against itself
 * (it prints the time, walks /proc, races its own background jobs...): datasets/bash/gold-exceptions.json,
 * keyed by the file system the task runs on (the project's "fs1", or InterCode's "intercode-fs1"
 * once fetched) and the task's index in nl2bash_fs_N.json.
 */
export async function documentedException(task: Task): Promise<string | undefined> {
  if (task.env !== "bash") return undefined;
  const m = /^nl2bash-(fs[1-4])$/.exec(task.dataset);
  if (!m || m[1] !== task.fs) return undefined;
  goldExceptions ??= import("@/lib/datasets/fs-check").then((fsCheck) => fsCheck.loadGoldExceptions());
  const { taskFileSystem } = await import("@/lib/datasets/intercode-fs");
  const e = (await goldExceptions)[taskFileSystem(task).name]?.[String(task.index)];
  return e ? `${e.reason} (allowed: ${e.allow.join(", ")})` : undefined;
}

/** datasets/bash/gold-exceptions.json, read once by the first failure that looks it up. */
let goldExceptions: Promise<GoldExceptions> | undefined;

/** What joins a failure's reason and its documented exception. */
const DOCUMENTED = "; documented exception: ";

/** Gold-checks a list of tasks with `concurrency` environments working in parallel. */
export async function goldCheck(
  tasks: Task[],
  opts: EnvironmentOptions & { concurrency?: number; onTask?: (o: GoldCheckOutcome) => void } = {},
): Promise<GoldCheckReport> {
  const { createEnvironment } = await import("@/lib/env/index");
  const outcomes: GoldCheckOutcome[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    if (next >= tasks.length) return;
    const env = await createEnvironment(tasks[0]!.env, opts);
    try {
      while (next < tasks.length) {
        const i = next++;
        const task = tasks[i]!;
        let o: GoldCheckOutcome;
        try {
          o = await goldCheckTask(env, task);
        } catch (err) {
          o = { taskId: task.id, reward: 0, reason: `error: ${(err as Error).message}` };
        }
        if (o.reward < 1) {
          const doc = await documentedException(task).catch(() => undefined);
          if (doc) o.reason = `${o.reason ?? "score below 1"}${DOCUMENTED}${doc}`;
        }
        outcomes[i] = o;
        opts.onTask?.(o);
      }
    } finally {
      await env.close();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 1) }, worker));
  const sum = outcomes.reduce((s, o) => s + o.reward, 0);
  return {
    tasks: outcomes.length,
    perfect: outcomes.filter((o) => o.reward >= 1).length,
    meanReward: outcomes.length ? Math.round((sum / outcomes.length) * 10_000) / 10_000 : 0,
    failures: outcomes.filter((o) => o.reward < 1).map((o) => ({ taskId: o.taskId, reward: o.reward, reason: o.reason ?? "score below 1" })),
  };
}

/** Frees warm pools and engine connections (they would keep the process alive), waiting at most 3 s. */
export async function shutdownSandboxes(): Promise<void> {
  const { shutdownSandboxBackends } = await import("@/lib/sandbox");
  await Promise.race([shutdownSandboxBackends().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
}

export default defineCommand({
  name: "gold-check",
  summary: "Submit each task's gold solution as the agent's answer and report how many score 1.0.",
  flags: z.object({
    env: envNameSchema.describe("the environment"),
    dataset: z.string().optional().describe("a dataset name (see `icstudio datasets`) or a task file path; default demo-<env>").meta({ value: "D" }),
    backend: backendSchema.default("auto").describe("sandbox backend"),
    profile: profileNameSchema.default(DEFAULT_PROFILE).describe("the episode engine's semantics the gold plays under (docs/profiles.md)"),
    "sql-url": z.string().optional().describe("sql: a MySQL-compatible server (default: $IC_SQL_URL, else embedded SQLite)").meta({ value: "URL" }),
    limit: z.coerce.number().int().min(1).optional().describe("only the first N tasks"),
    concurrency: z.coerce.number().int().min(1).default(2).describe("episodes run in parallel"),
    json: z.boolean().default(false).describe("print {tasks, perfect, meanReward, failures: [{taskId, reward, reason}]} only"),
  }),
  async run({ values }) {
    const { env, backend, concurrency } = values;
    const limit = values.limit ?? Infinity;
    const { loadDataset } = await import("@/lib/datasets/registry");
    const dataset = values.dataset ?? `demo-${env}`;
    let tasks = loadDataset(dataset);
    if (tasks.length && tasks[0]!.env !== env) throw new BadInputError(`dataset ${dataset} holds ${tasks[0]!.env} tasks, not ${env}`, "--dataset");
    if (Number.isFinite(limit)) tasks = tasks.slice(0, limit);
    const bar = new ProgressBar(`gold-check ${env} ${dataset}`, tasks.length);
    let perfect = 0;
    const report = await goldCheck(tasks, {
      backend,
      profile: values.profile,
      sqlUrl: values["sql-url"],
      concurrency,
      onTask: (o) => {
        if (o.reward >= 1) perfect++;
        bar.tick(1, `perfect ${perfect}`);
      },
    });
    if (values.json) {
      printJson(report);
    } else {
      process.stdout.write(`tasks ${report.tasks}\nperfect ${report.perfect}\nmeanReward ${report.meanReward}\n`);
      for (const f of report.failures) process.stdout.write(`failure ${f.taskId} reward ${f.reward}: ${f.reason}\n`);
    }
    if (report.failures.length) {
      const documented = report.failures.filter((f) => f.reason.includes(DOCUMENTED)).length;
      log(`${report.failures.length} task(s) below 1.0, ${documented} of them documented in datasets/bash/gold-exceptions.json`);
    }
    await shutdownSandboxes();
    return 0;
  },
});
