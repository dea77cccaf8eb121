import { createHash } from "node:crypto";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { EpisodeFlag } from "../flags";
import type { ParsedEpisode } from "../intercode";
import type { LogAttribution } from "../parse-log";
import type { TaskLinker } from "../task-links";
import { toolCallAction, toolEnv } from "../tool-actions";
import { inspectHeaderSchema, inspectSampleSchema, KNOWN_INSPECT_EVENTS, type InspectHeader, type InspectMessage, type InspectSample } from "./schema";

/**
 * One Inspect sample as a Studio episode. Each tool call that runs code is an action (bash's
 * `cmd`, python's `code`, sql's `query`; `submit(answer)` is InterCode's `submit <answer>`; any
 * other tool is `<name> <arguments as JSON>`), its tool result the observation, the assistant's
 * text before it the thought, the model call's usage its tokens; the first score the reward
 * (`C` 1, `P` 0.5, `I` and `N` 0, numbers as they are); the messages the transcript; the eval
 * spec who played and how. A last assistant reply with no tool call is the answer Inspect
 * scored: a `submit <answer>` turn. What has no column of its own (every score, the sample's
 * metadata and target, the eval spec, unknown events) is kept as the episode's breakdown, of
 * kind `inspect`.
 */

/** Everything about the log that its samples share. */
export interface InspectLogContext {
  header: InspectHeader;
  /** The log's name as imported, and its key (the idempotency keys of its samples derive from it). */
  sourceFile: string;
  logKey: string;
  importedAt: Date;
  linker: TaskLinker;
  attribution: LogAttribution;
  /** The log was still being written (no header.json, or status `started`). */
  unfinished: boolean;
}

/** Studio fields that an Inspect log cannot say natively; the exporter writes them in sample metadata, the importer reads them back. */
export const STUDIO_METADATA_KEY = "icstudio";

export class InspectRecordError extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The header (eval spec etc.), or the reason it is not one. */
export function readInspectHeader(v: unknown): InspectHeader {
  const parsed = inspectHeaderSchema.safeParse(v);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new InspectRecordError(`not an Inspect eval log: ${i.path.join(".") || "log"}: ${i.message}`);
  }
  return parsed.data;
}

/** Whether a parsed JSON document looks like an Inspect EvalLog (its top-level keys). */
export function looksLikeInspectLog(v: unknown): boolean {
  return isObj(v) && typeof v.version === "number" && isObj(v.eval) && typeof (v.eval as Record<string, unknown>).task === "string";
}

function resolve(s: string, attachments: Record<string, string> | undefined): string {
  if (attachments && s.startsWith("attachment://")) return attachments[s.slice("attachment://".length)] ?? s;
  return s;
}

/** A message's text: its text parts (reasoning first), images and other media named, not inlined. */
function contentText(c: InspectMessage["content"], attachments?: Record<string, string>): string {
  if (typeof c === "string") return resolve(c, attachments);
  const parts: string[] = [];
  for (const p of c as Array<Record<string, unknown>>) {
    if (p.type === "text" && typeof p.text === "string") parts.push(resolve(p.text, attachments));
    else if (p.type === "reasoning" && typeof p.reasoning === "string") parts.push(resolve(p.reasoning, attachments));
    else parts.push(`[${String(p.type)}]`);
  }
  return parts.join("\n");
}

/** A score's value as a reward: Inspect's letter grades, numbers and booleans; null for anything else. */
export function scoreReward(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") {
    const grade: Record<string, number> = { C: 1, I: 0, P: 0.5, N: 0 };
    if (value in grade) return grade[value];
    const n = Number(value);
    return value.trim() !== "" && Number.isFinite(n) ? n : null;
  }
  return null;
}

function keyOf(logKey: string, sample: InspectSample, attribution: LogAttribution): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        "inspect",
        logKey,
        String(sample.id),
        sample.epoch,
        attribution.model ?? null,
        attribution.policy ?? null,
        attribution.dataset ?? null,
        attribution.turnLimit ?? null,
      ]),
    )
    .digest("hex")
    .slice(0, 40);
}

const taskGold = (t: Task) => (typeof t.gold === "string" ? t.gold : JSON.stringify(t.gold));
const taskDb = (t: Task) => (t.env === "sql" ? t.db : t.env === "bash" ? t.fs : null);

/** Reads one sample (as parsed JSON) into an episode; throws InspectRecordError when it is no sample. */
export function inspectSampleToEpisode(value: unknown, ctx: InspectLogContext): ParsedEpisode {
  const parsed = inspectSampleSchema.safeParse(value);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new InspectRecordError(
      `${i.path.join(".") || "sample"}: ${i.message}${parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problems)` : ""}`,
    );
  }
  const s = parsed.data;
  const spec = ctx.header.eval;
  const flags = new Set<EpisodeFlag>();
  if (ctx.unfinished) flags.add("unfinished-log");
  const att = s.attachments;
  const studio = isObj(s.metadata?.[STUDIO_METADATA_KEY]) ? (s.metadata![STUDIO_METADATA_KEY] as Record<string, unknown>) : null;

  // Token usage of each model reply, by the reply's message id (model events).
  const usageById = new Map<string, { in: number | null; out: number | null }>();
  const unknownEvents: unknown[] = [];
  const eventTypes: Record<string, number> = {};
  for (const e of s.events ?? []) {
    eventTypes[e.event] = (eventTypes[e.event] ?? 0) + 1;
    if (!KNOWN_INSPECT_EVENTS.has(e.event)) unknownEvents.push(e);
    if (e.event !== "model") continue;
    const out = e.output as { choices?: Array<{ message?: { id?: string } }>; usage?: { input_tokens?: number; output_tokens?: number } } | undefined;
    const mid = out?.choices?.[0]?.message?.id;
    if (mid && out?.usage) usageById.set(mid, { in: out.usage.input_tokens ?? null, out: out.usage.output_tokens ?? null });
  }
  if (unknownEvents.length) flags.add("unknown-events");

  type T = ParsedEpisode["turns"][number];
  const turns: T[] = [];
  const messages: NonNullable<ParsedEpisode["messages"]> = [];
  const byCall = new Map<string, T>();
  let pendingThought: string[] = [];
  let toolCalls = 0;
  const envs = new Set<EnvName>();
  const assistants = s.messages.filter((m) => m.role === "assistant");
  const lastAssistant = assistants[assistants.length - 1];
  for (const m of s.messages) {
    const text = contentText(m.content, att);
    if (m.role === "system" || m.role === "user") {
      messages.push({ seq: messages.length, turnIndex: turns.length, role: m.role, content: text });
      continue;
    }
    if (m.role === "assistant") {
      messages.push({ seq: messages.length, turnIndex: turns.length, role: "assistant", content: text });
      const usage = m.id ? usageById.get(m.id) : undefined;
      const meta = isObj(m.metadata?.[STUDIO_METADATA_KEY]) ? (m.metadata![STUDIO_METADATA_KEY] as Record<string, unknown>) : null;
      const calls = m.tool_calls ?? [];
      if (text.trim()) pendingThought.push(text);
      if (
        calls.length === 0 &&
        m === lastAssistant &&
        !s.messages.some((x) => x.role === "assistant" && x.tool_calls?.some((c) => c.function === "submit")) &&
        text.trim()
      ) {
        // The answer Inspect scored.
        pendingThought.pop();
        turns.push({
          index: turns.length,
          actor: "model",
          action: `submit ${text}`,
          observation: "",
          ok: null,
          reward: null,
          thought: pendingThought.length ? pendingThought.join("\n") : null,
          tokensIn: usage?.in ?? null,
          tokensOut: usage?.out ?? null,
        });
        pendingThought = [];
      }
      calls.forEach((c, k) => {
        toolCalls++;
        const env = toolEnv(c.function);
        if (env) envs.add(env);
        const turn: T = {
          index: turns.length,
          actor: "model",
          action: toolCallAction(c.function, c.arguments),
          observation: "",
          ok: null,
          reward: typeof meta?.reward === "number" ? meta.reward : null,
          thought: k === 0 && pendingThought.length ? pendingThought.join("\n") : null,
          rawReply: k === 0 && typeof meta?.rawReply === "string" ? meta.rawReply : null,
          // A reply's usage goes with its first call (a reply with several calls is one model call).
          tokensIn: k === 0 ? (usage?.in ?? null) : null,
          tokensOut: k === 0 ? (usage?.out ?? null) : null,
        };
        if (k === 0) pendingThought = [];
        turns.push(turn);
        byCall.set(c.id, turn);
      });
      continue;
    }
    // A tool result.
    const turn = m.tool_call_id ? byCall.get(m.tool_call_id) : undefined;
    const meta = isObj(m.metadata?.[STUDIO_METADATA_KEY]) ? (m.metadata![STUDIO_METADATA_KEY] as Record<string, unknown>) : null;
    const err = m.error ? `${m.error.type ?? "error"}: ${m.error.message ?? ""}` : null;
    const observation = text || (err ?? "");
    const fill = (t: T) => {
      t.observation = observation;
      t.ok = typeof meta?.ok === "boolean" ? meta.ok : m.error ? false : null;
      if (typeof meta?.reward === "number") t.reward = meta.reward;
      if (m.error?.type === "timeout") t.timedOut = true;
    };
    if (turn) fill(turn);
    else {
      flags.add("tool-result-without-call");
      const t: T = { index: turns.length, actor: "model", action: "", observation: "", ok: null, reward: null, thought: null };
      fill(t);
      turns.push(t);
      const env = m.function ? toolEnv(m.function) : null;
      if (env) envs.add(env);
    }
  }
  if (!toolCalls && turns.length === 0) flags.add("no-actions");
  // A reply's usage when no model event names it: the one reply's, from the output.
  if (s.output?.usage && usageById.size === 0 && assistants.length === 1 && turns.length && turns[0].tokensIn == null) {
    turns[0].tokensIn = s.output.usage.input_tokens ?? null;
    turns[0].tokensOut = s.output.usage.output_tokens ?? null;
  }

  // Reward and verdict: the Studio's own score when it wrote the log, else the first scorer's.
  const scores = s.scores ?? {};
  const scoreNames = Object.keys(scores);
  const main = scores[STUDIO_METADATA_KEY] ?? (scoreNames.length ? scores[scoreNames[0]] : undefined);
  const reward = main ? scoreReward(main.value) : null;
  if (reward === null) flags.add("unscored");
  else if (reward < 0) flags.add("negative-reward");
  else if (reward > 1) flags.add("reward-above-one");
  if (s.error) flags.add("sample-error");

  // The task: InterCode's when the log plays one.
  const input = typeof s.input === "string" ? resolve(s.input, att) : s.input.map((m) => contentText(m.content, att)).join("\n");
  const isCtfSet = /intercode[_-]?ctf/i.test(spec.task);
  const linked = isCtfSet ? ctx.linker.byId("ctf", String(s.id)) : ctx.linker.byQuestion(input);
  const studioEnv =
    typeof studio?.environment === "string" && ["bash", "sql", "python", "ctf"].includes(studio.environment) ? (studio.environment as EnvName) : null;
  let environment: EnvName;
  if (linked) environment = linked.env;
  else if (studioEnv) environment = studioEnv;
  else if (isCtfSet) environment = "ctf";
  else if (envs.size) environment = envs.has("bash") ? "bash" : [...envs][0];
  else {
    environment = "bash";
    flags.add("no-environment");
  }
  const taskName = (spec.dataset?.name ?? spec.task).replace(/\s+/g, "-");
  const dataset =
    ctx.attribution.dataset ?? linked?.dataset ?? (typeof studio?.dataset === "string" ? studio.dataset : isCtfSet ? "ctf" : `inspect-${taskName}`);
  const target = s.target === undefined ? null : typeof s.target === "string" ? s.target : JSON.stringify(s.target);

  const solvedIdx = reward !== null && reward >= 1 ? turns.findIndex((t) => t.reward !== null && t.reward !== undefined && t.reward >= 1) : -1;
  const started = ctx.header.stats?.started_at ?? spec.created;
  const startedAt = started && !Number.isNaN(Date.parse(started)) ? new Date(Date.parse(started)).toISOString() : ctx.importedAt.toISOString();
  const solver = spec.solver ?? ctx.header.plan?.steps?.map((p) => p.solver).join("+") ?? null;
  const model = ctx.attribution.model ?? (studio && "model" in studio ? (typeof studio.model === "string" ? studio.model : null) : spec.model);
  const human = model === "human";
  const num = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);
  const turnLimit = ctx.attribution.turnLimit ?? num(studio?.turnLimit) ?? num(spec.config?.message_limit) ?? Math.max(1, turns.length);
  return {
    environment,
    dataset,
    taskId: linked ? linked.id : typeof studio?.taskId === "string" ? studio.taskId : String(s.id),
    taskIndex: linked ? linked.index : typeof studio?.taskIndex === "number" ? studio.taskIndex : null,
    query: input,
    gold: linked ? taskGold(linked) : typeof studio?.gold === "string" ? studio.gold : target,
    hardness: linked?.env === "sql" ? (linked.hardness ?? null) : typeof studio?.hardness === "string" ? studio.hardness : null,
    db: linked ? taskDb(linked) : typeof studio?.db === "string" ? studio.db : null,
    playerKind: human ? "human" : "model",
    annotator: null,
    model: human ? null : model,
    policy: ctx.attribution.policy ?? (typeof studio?.policy === "string" ? studio.policy : solver),
    turnLimit,
    mode: "import",
    status: s.error ? "error" : "submitted",
    errorReason: s.error?.message ?? null,
    reward,
    breakdown: {
      kind: "inspect",
      scores,
      sample: {
        id: s.id,
        epoch: s.epoch,
        target: s.target ?? null,
        metadata: s.metadata ?? null,
        total_time: s.total_time ?? null,
        working_time: s.working_time ?? null,
        model_usage: s.model_usage ?? null,
      },
      eval: {
        task: spec.task,
        task_id: spec.task_id ?? null,
        eval_id: spec.eval_id ?? null,
        run_id: spec.run_id ?? null,
        model: spec.model,
        solver,
        dataset: spec.dataset ?? null,
        config: spec.config ?? null,
      },
      eventTypes,
      ...(unknownEvents.length ? { unknownEvents } : {}),
    },
    success: reward !== null && reward >= 1,
    solvedAtTurn: reward !== null && reward >= 1 ? (solvedIdx >= 0 ? solvedIdx + 1 : Math.max(1, turns.length)) : null,
    durationMs: typeof s.total_time === "number" ? Math.round(s.total_time * 1000) : null,
    flags: [...flags],
    startedAt,
    sourceFile: ctx.sourceFile,
    sourceKey: keyOf(ctx.logKey, s, ctx.attribution),
    turns,
    ...(messages.length ? { messages } : {}),
  };
}
