import { createHash } from "node:crypto";
import { z } from "zod";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { EpisodeFlag } from "../flags";
import type { ParsedEpisode } from "../intercode";
import type { LogAttribution } from "../parse-log";
import type { TaskLinker } from "../task-links";
import { toolCallAction, toolEnv } from "../tool-actions";

/**
 * Harbor's ATIF trajectories (`ATIF-v1.0` .. `ATIF-v1.x`) as Studio episodes. An agent step's
 * tool calls are the actions (lib/trajectories/tool-actions.ts), the observation results that
 * answer them (by source_call_id) the observations, `reasoning_content` the thought, `message`
 * the raw reply, `metrics` the tokens and cost; system and user steps are the transcript, the
 * first user message the question. ATIF has no reward: a Harbor trial keeps it beside the
 * trajectory (verifier/reward.txt or reward.json) and the outcome in result.json; a trajectory
 * with no reward is stored unscored and flagged. What has no column (the agent, notes, final
 * metrics, the trial's result) is kept as the breakdown, of kind `atif`.
 */

/** The Studio fields ATIF cannot say natively, in `extra.icstudio` (root and steps). */
export const ATIF_STUDIO_KEY = "icstudio";

const content = z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().nullable().optional() }))]);

export const atifTrajectorySchema = z.looseObject({
  schema_version: z.string().regex(/^ATIF-v1\.\d+$/, "expected ATIF-v1.x"),
  session_id: z.string(),
  agent: z.looseObject({ name: z.string(), version: z.string(), model_name: z.string().nullable().optional() }),
  steps: z.array(
    z.looseObject({
      step_id: z.number().int(),
      timestamp: z.string().nullable().optional(),
      source: z.enum(["system", "user", "agent"]),
      model_name: z.string().nullable().optional(),
      message: content,
      reasoning_content: z.string().nullable().optional(),
      tool_calls: z
        .array(z.looseObject({ tool_call_id: z.string(), function_name: z.string(), arguments: z.record(z.string(), z.unknown()) }))
        .nullable()
        .optional(),
      observation: z
        .looseObject({ results: z.array(z.looseObject({ source_call_id: z.string().nullable().optional(), content: content.nullable().optional() })) })
        .nullable()
        .optional(),
      metrics: z
        .looseObject({
          prompt_tokens: z.number().nullable().optional(),
          completion_tokens: z.number().nullable().optional(),
          cost_usd: z.number().nullable().optional(),
        })
        .nullable()
        .optional(),
      extra: z.record(z.string(), z.unknown()).nullable().optional(),
    }),
  ),
  notes: z.string().nullable().optional(),
  final_metrics: z.record(z.string(), z.unknown()).nullable().optional(),
  extra: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type AtifTrajectory = z.infer<typeof atifTrajectorySchema>;

/** What a Harbor trial folder holds beside the trajectory. */
export interface AtifTrial {
  /** The verifier's reward; undefined when no reward file exists (the verifier never ran). */
  reward?: number | null;
  /** reward.json's other values, as written. */
  rewards?: Record<string, unknown>;
  /** result.json, as written. */
  result?: Record<string, unknown>;
  /** The trial's name (its folder). */
  name?: string;
}

export class AtifRecordError extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function text(c: z.infer<typeof content> | null | undefined): string {
  if (c === null || c === undefined) return "";
  if (typeof c === "string") return c;
  return c.map((p) => (p.type === "text" ? (p.text ?? "") : `[${p.type}]`)).join("\n");
}

/** Validates a parsed trajectory.json, naming the first problem. */
export function readAtifTrajectory(v: unknown): AtifTrajectory {
  const parsed = atifTrajectorySchema.safeParse(v);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new AtifRecordError(
      `not an ATIF trajectory: ${i.path.join(".") || "trajectory"}: ${i.message}${parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problems)` : ""}`,
    );
  }
  return parsed.data;
}

/** Whether a JSON text's beginning reads like an ATIF trajectory. */
export function textLooksLikeAtif(t: string): boolean {
  return /"schema_version"\s*:\s*"ATIF-v/.test(t.slice(0, 65536));
}

const taskGold = (t: Task) => (typeof t.gold === "string" ? t.gold : JSON.stringify(t.gold));
const taskDb = (t: Task) => (t.env === "sql" ? t.db : t.env === "bash" ? t.fs : null);

export interface AtifContext {
  sourceFile: string;
  importedAt: Date;
  linker: TaskLinker;
  attribution: LogAttribution;
  /** The trajectory file's SHA-256: its episode's idempotency key derives from it. */
  contentHash: string;
}

/** One trajectory (and its trial's reward and result, when it has them) as an episode. */
export function atifToEpisode(traj: AtifTrajectory, trial: AtifTrial, ctx: AtifContext): ParsedEpisode {
  const flags = new Set<EpisodeFlag>();
  const studio = isObj(traj.extra?.[ATIF_STUDIO_KEY]) ? (traj.extra![ATIF_STUDIO_KEY] as Record<string, unknown>) : null;
  type T = ParsedEpisode["turns"][number];
  const turns: T[] = [];
  const messages: NonNullable<ParsedEpisode["messages"]> = [];
  const envs = new Set<EnvName>();
  let question: string | null = null;
  for (const step of traj.steps) {
    const msg = text(step.message);
    if (step.source !== "agent") {
      messages.push({ seq: messages.length, turnIndex: turns.length, role: step.source, content: msg });
      if (step.source === "user" && question === null) question = msg;
      continue;
    }
    messages.push({ seq: messages.length, turnIndex: turns.length, role: "assistant", content: msg });
    const meta = isObj(step.extra?.[ATIF_STUDIO_KEY]) ? (step.extra![ATIF_STUDIO_KEY] as Record<string, unknown>) : null;
    const results = step.observation?.results ?? [];
    const calls = step.tool_calls ?? [];
    const used = new Set<number>();
    calls.forEach((c, k) => {
      const env = toolEnv(c.function_name);
      if (env) envs.add(env);
      const ri = results.findIndex((r, j) => !used.has(j) && r.source_call_id === c.tool_call_id);
      if (ri >= 0) used.add(ri);
      const m = step.metrics;
      turns.push({
        index: turns.length,
        actor: "model",
        action: toolCallAction(c.function_name, c.arguments),
        observation: ri >= 0 ? text(results[ri].content) : "",
        ok: typeof meta?.ok === "boolean" ? meta.ok : null,
        reward: typeof meta?.reward === "number" ? meta.reward : null,
        ...(meta?.timedOut === true ? { timedOut: true } : {}),
        thought: k === 0 ? (step.reasoning_content ?? null) : null,
        rawReply: k === 0 && msg ? msg : null,
        tokensIn: k === 0 ? (m?.prompt_tokens ?? null) : null,
        tokensOut: k === 0 ? (m?.completion_tokens ?? null) : null,
        costUsd: k === 0 ? (m?.cost_usd ?? null) : null,
        startedAt: k === 0 && step.timestamp && !Number.isNaN(Date.parse(step.timestamp)) ? new Date(Date.parse(step.timestamp)).toISOString() : null,
      });
    });
    // Results that answer no call of the step (ATIF allows them: actions outside tool calling).
    results.forEach((r, j) => {
      if (used.has(j)) return;
      if (r.source_call_id) flags.add("tool-result-without-call");
      turns.push({
        index: turns.length,
        actor: "model",
        action: "",
        observation: text(r.content),
        ok: null,
        reward: null,
        thought: calls.length ? null : (step.reasoning_content ?? null),
        rawReply: calls.length ? null : msg || null,
      });
    });
  }
  if (turns.length === 0) flags.add("no-actions");

  // The outcome: the verifier's reward, else (a trajectory alone) the Studio's own, else none.
  let reward: number | null = null;
  if (trial.reward !== undefined) reward = trial.reward;
  else if (typeof studio?.reward === "number") reward = studio.reward;
  if (reward === null) flags.add("unscored");
  else if (reward < 0) flags.add("negative-reward");
  else if (reward > 1) flags.add("reward-above-one");
  const exception = trial.result?.exception_info;
  if (exception) flags.add("sample-error");

  const taskName = typeof trial.result?.task_name === "string" ? trial.result.task_name : undefined;
  const ctfId = taskName ? /intercode[-_]?ctf[-_](\d+)$/i.exec(taskName)?.[1] : undefined;
  const linked = (ctfId !== undefined ? ctx.linker.byId("ctf", ctfId) : null) ?? (question !== null ? ctx.linker.byQuestion(question) : null);
  const studioEnv =
    typeof studio?.environment === "string" && ["bash", "sql", "python", "ctf"].includes(studio.environment) ? (studio.environment as EnvName) : null;
  let environment: EnvName;
  if (linked) environment = linked.env;
  else if (studioEnv) environment = studioEnv;
  else if (envs.size) environment = envs.has("bash") ? "bash" : [...envs][0];
  else {
    environment = "bash";
    flags.add("no-environment");
  }
  const s = (k: string) => (typeof studio?.[k] === "string" ? (studio[k] as string) : null);
  const model = ctx.attribution.model ?? traj.agent.model_name ?? null;
  const human = model === "human";
  const firstTs = traj.steps.find((x) => x.timestamp && !Number.isNaN(Date.parse(x.timestamp)))?.timestamp;
  const started = typeof trial.result?.started_at === "string" ? trial.result.started_at : firstTs;
  const finished = typeof trial.result?.finished_at === "string" ? trial.result.finished_at : null;
  const iso = (x: string | null | undefined) => (x && !Number.isNaN(Date.parse(x)) ? new Date(Date.parse(x)).toISOString() : null);
  const limit = typeof studio?.turnLimit === "number" && Number.isInteger(studio.turnLimit) && studio.turnLimit > 0 ? studio.turnLimit : undefined;
  const solvedIdx = reward !== null && reward >= 1 ? turns.findIndex((t) => t.reward !== null && t.reward !== undefined && t.reward >= 1) : -1;
  return {
    environment,
    dataset: ctx.attribution.dataset ?? linked?.dataset ?? s("dataset") ?? `atif-${traj.agent.name}`,
    taskId: linked?.id ?? s("taskId") ?? taskName ?? trial.name ?? traj.session_id,
    taskIndex: linked ? linked.index : typeof studio?.taskIndex === "number" ? studio.taskIndex : null,
    query: question ?? s("query") ?? "",
    gold: linked ? taskGold(linked) : s("gold"),
    hardness: linked?.env === "sql" ? (linked.hardness ?? null) : s("hardness"),
    db: linked ? taskDb(linked) : s("db"),
    playerKind: human ? "human" : "model",
    annotator: null,
    model: human ? null : model,
    policy: ctx.attribution.policy ?? s("policy") ?? traj.agent.name,
    turnLimit: ctx.attribution.turnLimit ?? limit ?? Math.max(1, turns.length),
    mode: "import",
    status: exception ? "error" : "submitted",
    errorReason: exception
      ? isObj(exception) && typeof exception.exception_message === "string"
        ? exception.exception_message
        : JSON.stringify(exception)
      : null,
    reward,
    breakdown: {
      kind: "atif",
      schema_version: traj.schema_version,
      session_id: traj.session_id,
      agent: traj.agent,
      ...(trial.rewards ? { rewards: trial.rewards } : {}),
      ...(trial.result ? { result: trial.result } : {}),
      ...(traj.notes ? { notes: traj.notes } : {}),
      ...(traj.final_metrics ? { final_metrics: traj.final_metrics } : {}),
    },
    success: reward !== null && reward >= 1,
    solvedAtTurn: reward !== null && reward >= 1 ? (solvedIdx >= 0 ? solvedIdx + 1 : Math.max(1, turns.length)) : null,
    flags: [...flags],
    startedAt: iso(started) ?? ctx.importedAt.toISOString(),
    endedAt: iso(finished),
    sourceFile: ctx.sourceFile,
    sourceKey: createHash("sha256")
      .update(
        JSON.stringify([
          "atif",
          ctx.contentHash,
          trial.name ?? null,
          reward,
          ctx.attribution.model ?? null,
          ctx.attribution.policy ?? null,
          ctx.attribution.dataset ?? null,
          ctx.attribution.turnLimit ?? null,
        ]),
      )
      .digest("hex")
      .slice(0, 40),
    turns,
    ...(messages.length ? { messages } : {}),
  };
}

/** A reward file's value: reward.txt holds a number; reward.json `{"reward": x}` (or one number among its values). */
export function readRewardFile(name: string, t: string): { reward: number | null; rewards?: Record<string, unknown> } {
  if (name.endsWith(".txt")) {
    const n = Number(t.trim());
    if (t.trim() === "" || !Number.isFinite(n)) throw new AtifRecordError(`${name}: expected a number, found ${JSON.stringify(t.trim().slice(0, 40))}`);
    return { reward: n };
  }
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch (err) {
    throw new AtifRecordError(`${name}: damaged JSON: ${(err as Error).message}`);
  }
  if (typeof v === "number") return { reward: v };
  if (!isObj(v)) throw new AtifRecordError(`${name}: expected {"reward": <number>}`);
  if (typeof v.reward === "number") return { reward: v.reward, rewards: v };
  const nums = Object.values(v).filter((x): x is number => typeof x === "number");
  return { reward: nums.length === 1 ? nums[0] : null, rewards: v };
}
