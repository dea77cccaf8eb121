import { createHash } from "node:crypto";
import type { Episode, Turn } from "@/lib/db/episodes";
import type { TranscriptMessage } from "@/lib/db/transcripts";
import { actionToolCall } from "../tool-actions";
import { STUDIO_METADATA_KEY } from "./read";

/**
 * Studio episodes as an Inspect eval log (`.eval`, version 2), the inverse of ./read.ts: each
 * turn is an assistant message (the thought as its text, the action as a tool call, its tokens
 * on the model event) and a tool message (the observation); the reward is the `icstudio` score.
 * What Inspect has no field for (environment, dataset, task, per-turn reward and outcome) goes
 * in `metadata.icstudio`, which the Studio's importer reads back.
 */

export type ExportedEpisode = Episode & { turns: Turn[]; messages?: TranscriptMessage[] };

/** A short stable id (Inspect's ids are shortuuids; any unique string does). */
const sid = (...parts: string[]) => createHash("sha256").update(parts.join("\0")).digest("base64url").slice(0, 22);

const usage = (i: number | null, o: number | null) => ({ input_tokens: i ?? 0, output_tokens: o ?? 0, total_tokens: (i ?? 0) + (o ?? 0) });

/** One episode as an Inspect sample (and the summary the log's summaries.json lists for it). */
export function episodeToInspectSample(
  e: ExportedEpisode,
  sampleId: string | number,
  epoch: number,
  model: string,
): { sample: Record<string, unknown>; summary: Record<string, unknown> } {
  const when = (d: Date | null | undefined) => (d ?? e.startedAt).toISOString();
  const system = e.messages?.find((m) => m.role === "system");
  const messages: Record<string, unknown>[] = [];
  const events: Record<string, unknown>[] = [];
  if (system) messages.push({ id: sid(e.id, "system"), role: "system", content: system.content, source: "input" });
  messages.push({ id: sid(e.id, "input"), role: "user", content: e.query, source: "input" });
  let inTok = 0;
  let outTok = 0;
  let answer: string | null = null;
  for (const t of e.turns) {
    const call = actionToolCall(e.environment, t.action);
    if (call.fn === "submit") answer = String(call.args.answer);
    const callId = `call_${t.index}`;
    const assistant = {
      id: sid(e.id, "reply", String(t.index)),
      role: "assistant",
      content: t.thought ?? "",
      source: "generate",
      model: e.model ?? model,
      tool_calls: [{ id: callId, function: call.fn, arguments: call.args, type: "function" }],
      metadata: { [STUDIO_METADATA_KEY]: { index: t.index, rawReply: t.rawReply } },
    };
    const tool = {
      id: sid(e.id, "tool", String(t.index)),
      role: "tool",
      content: t.observation,
      tool_call_id: callId,
      function: call.fn,
      ...(t.timedOut ? { error: { type: "timeout", message: "the action timed out" } } : {}),
      metadata: { [STUDIO_METADATA_KEY]: { reward: t.reward, ok: t.ok } },
    };
    messages.push(assistant, tool);
    inTok += t.tokensIn ?? 0;
    outTok += t.tokensOut ?? 0;
    const ts = when(t.startedAt);
    events.push({
      event: "model",
      timestamp: ts,
      working_start: 0,
      model: e.model ?? model,
      input: [],
      tools: [],
      tool_choice: "auto",
      config: {},
      // Tokens unknown (InterCode's logs have none): no usage, rather than a count of 0.
      output: {
        model: e.model ?? model,
        choices: [{ message: assistant, stop_reason: "tool_calls" }],
        ...(t.tokensIn === null && t.tokensOut === null ? {} : { usage: usage(t.tokensIn, t.tokensOut) }),
        time: (t.latencyMs ?? 0) / 1000,
      },
    });
    events.push({
      event: "tool",
      timestamp: ts,
      working_start: 0,
      type: "function",
      id: callId,
      function: call.fn,
      arguments: call.args,
      result: t.observation,
      events: [],
      completed: ts,
      working_time: (t.durationMs ?? 0) / 1000,
    });
  }
  const score = { value: e.reward ?? "N", answer: answer ?? undefined, explanation: e.reward === null ? "never scored" : `InterCode reward ${e.reward}` };
  const studio = {
    environment: e.environment,
    dataset: e.dataset,
    taskId: e.taskId,
    taskIndex: e.taskIndex,
    gold: e.gold,
    hardness: e.hardness,
    db: e.db,
    model: e.model,
    policy: e.policy,
    turnLimit: e.turnLimit,
    episodeId: e.id,
  };
  const last = messages[messages.length - 1];
  const modelUsage = { [e.model ?? model]: usage(inTok, outTok) };
  const seconds = (e.durationMs ?? 0) / 1000;
  const sample = {
    id: sampleId,
    epoch,
    input: e.query,
    target: e.gold ?? "",
    messages,
    output: {
      model: e.model ?? model,
      choices: last.role === "assistant" ? [{ message: last, stop_reason: "stop" }] : [],
      ...(e.turns.some((t) => t.tokensIn !== null || t.tokensOut !== null) ? { usage: usage(inTok, outTok) } : {}),
    },
    scores: e.reward === null ? {} : { [STUDIO_METADATA_KEY]: score },
    metadata: { [STUDIO_METADATA_KEY]: studio },
    store: {},
    events: [
      ...events,
      ...(e.reward === null ? [] : [{ event: "score", timestamp: when(e.endedAt), working_start: 0, score, target: e.gold ?? "", intermediate: false }]),
    ],
    model_usage: modelUsage,
    total_time: seconds,
    working_time: seconds,
    uuid: sid(e.id, "uuid"),
    ...(e.status === "error" ? { error: { message: e.errorReason ?? "error", traceback: "", traceback_ansi: "" } } : {}),
    attachments: {},
  };
  const summary = {
    id: sampleId,
    epoch,
    input: e.query,
    target: e.gold ?? "",
    metadata: {},
    scores: sample.scores,
    model_usage: modelUsage,
    total_time: seconds,
    working_time: seconds,
    uuid: sample.uuid,
    retries: 0,
    completed: true,
    message_count: messages.length,
    ...(e.status === "error" ? { error: e.errorReason ?? "error" } : {}),
  };
  return { sample, summary };
}

/** The log's header (eval spec, plan, results, stats) for `n` samples of which `scored` have a reward. */
export function inspectHeader(p: {
  model: string;
  policy: string;
  samples: { id: string | number; epoch: number; reward: number | null }[];
  created: Date;
  started: Date;
  finished: Date;
  usage: Record<string, unknown>;
}) {
  const scored = p.samples.filter((s) => s.reward !== null);
  const mean = scored.length ? scored.reduce((n, s) => n + (s.reward ?? 0), 0) / scored.length : 0;
  const evalId = sid("eval", p.created.toISOString(), String(p.samples.length));
  const spec = {
    eval_id: evalId,
    run_id: sid("run", evalId),
    created: p.created.toISOString(),
    task: "icstudio_export",
    task_id: sid("task", evalId),
    task_version: 0,
    task_attribs: {},
    task_args: {},
    solver: p.policy,
    dataset: { name: "icstudio", samples: p.samples.length, sample_ids: [...new Set(p.samples.map((s) => s.id))], shuffled: false },
    model: p.model,
    model_generate_config: {},
    model_args: {},
    config: {},
    packages: { intercode_studio: "0.1.0" },
    scorers: [{ name: STUDIO_METADATA_KEY, options: {}, metrics: [{ name: "mean", options: {} }], metadata: {} }],
  };
  const plan = { name: "plan", steps: [{ solver: p.policy, params: {} }], config: {} };
  return {
    start: { version: 2, eval: spec, plan },
    header: {
      version: 2,
      status: "success",
      eval: spec,
      plan,
      results: {
        total_samples: p.samples.length,
        completed_samples: p.samples.length,
        scores: [{ name: STUDIO_METADATA_KEY, scorer: STUDIO_METADATA_KEY, params: {}, metrics: { mean: { name: "mean", value: mean, params: {} } } }],
      },
      stats: { started_at: p.started.toISOString(), completed_at: p.finished.toISOString(), model_usage: p.usage },
    },
    reductions: [{ scorer: STUDIO_METADATA_KEY, samples: scored.map((s) => ({ value: s.reward, sample_id: s.id })) }],
  };
}
