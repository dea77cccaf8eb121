import "server-only";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";
import { estimateTokens } from "./conversation";

/**
 * A real OpenAI-compatible HTTP server (POST /v1/chat/completions, streaming and not) whose
 * replies are scripted per task. Tests, the end-to-end suite and the benchmark point the agent at
 * it exactly as they would point it at vLLM or OpenRouter, so the whole provider code path runs.
 *
 * A conversation is matched to a rule by a substring of its messages (usually the task's query)
 * or by a task id sent in the `x-ic-task` header or as a `[task:ID]` marker in a message. The
 * reply is chosen by how many assistant messages the request already holds, so the server keeps
 * no per-conversation state and any number of episodes can share it.
 */

export interface ChatMessageIn {
  role: string;
  content: string;
}

/** Context handed to a reply function. */
export interface ReplyContext {
  messages: ChatMessageIn[];
  /** Number of assistant messages already in the conversation (0 for the first reply). */
  turn: number;
  taskId?: string;
}

export type FaultKind = "401" | "429" | "500" | "hang" | "malformed" | "empty" | "refusal";

/** Fails the first `times` attempts of a reply (at `turn`, or at every turn when omitted). */
export interface Fault {
  kind: FaultKind;
  times: number;
  /** Only at this turn (number of assistant messages so far). */
  turn?: number;
  /** Seconds sent in `retry-after` with a 429. */
  retryAfterSec?: number;
  /** How long a "hang" keeps the request open before dropping it (default 60 s). */
  hangMs?: number;
}

export interface ScriptRule {
  /** Matches when any message contains this text. */
  match?: string;
  /** Matches the `x-ic-task` header or a `[task:ID]` marker. */
  taskId?: string;
  /** Replies in order (the last one repeats), or a function of the conversation. */
  replies: string[] | ((ctx: ReplyContext) => string);
  faults?: Fault[];
}

export interface Script {
  rules: ScriptRule[];
  /** Reply when no rule matches; without it such a request gets HTTP 404 with a clear message. */
  fallback?: string | ((ctx: ReplyContext) => string);
  /** Milliseconds to wait before each reply (default 0: instant). */
  delayMs?: number;
  /** When set, a request without `Authorization: Bearer <apiKey>` gets HTTP 401, as a provider answers a bad key. */
  apiKey?: string;
}

const faultSchema = z.object({
  kind: z.enum(["401", "429", "500", "hang", "malformed", "empty", "refusal"]),
  times: z.number().int().nonnegative(),
  turn: z.number().int().nonnegative().optional(),
  retryAfterSec: z.number().nonnegative().optional(),
  hangMs: z.number().int().positive().optional(),
});

/** The JSON form of a script (no functions), as read by `icstudio scripted-server --script FILE`. */
export const scriptFileSchema = z.object({
  rules: z.array(
    z
      .object({
        match: z.string().min(1).optional(),
        taskId: z.string().min(1).optional(),
        replies: z.array(z.string()).min(1),
        faults: z.array(faultSchema).optional(),
      })
      .refine((r) => r.match || r.taskId, { message: "a rule needs `match` or `taskId`" }),
  ),
  fallback: z.string().optional(),
  delayMs: z.number().int().nonnegative().optional(),
  apiKey: z.string().min(1).optional(),
});

/** Validates a parsed JSON script; `where` names the file in the error. */
export function parseScriptFile(json: unknown, where: string): Script {
  const parsed = scriptFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, `${where}: ${issue.path.join(".") || "(root)"}`);
  }
  return parsed.data;
}

export interface ScriptedServer {
  /** Base URL to give an OpenAI-compatible client, ending in /v1. */
  readonly baseURL: string;
  readonly port: number;
  /** Requests received, for assertions. */
  readonly requests: { taskId?: string; turn: number; stream: boolean; outcome: "ok" | FaultKind | "no-rule" }[];
  /** Replaces the script (fault counters start over). */
  setScript(script: Script): void;
  close(): Promise<void>;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === "object" && "text" in p ? String((p as { text: unknown }).text) : "")).join("");
  }
  return "";
}

/** What the scripted server answers a request without the right key (OpenAI's wording and shape). */
const UNAUTHORIZED = { error: { message: "Incorrect API key provided (scripted)", type: "invalid_request_error", code: "invalid_api_key" } };
/** The scripted model's refusal. */
export const REFUSAL = "I can't help with that request (scripted refusal).";

const TASK_MARKER = /\[task:([^\]\s]+)\]/;

/** Starts the server on 127.0.0.1, on `port` or a free one. */
export async function startScriptedServer(initial: Script, options: { port?: number } = {}): Promise<ScriptedServer> {
  let script = initial;
  let attempts = new Map<string, number>();
  const requests: ScriptedServer["requests"] = [];
  const hanging = new Set<NodeJS.Timeout>();

  function findRule(messages: ChatMessageIn[], taskId?: string): { rule: ScriptRule; index: number } | undefined {
    const marker = messages.map((m) => TASK_MARKER.exec(m.content)?.[1]).find(Boolean);
    const id = taskId ?? marker;
    for (const [index, rule] of script.rules.entries()) {
      if (rule.taskId && id && rule.taskId === id) return { rule, index };
      if (rule.match && messages.some((m) => m.content.includes(rule.match!))) return { rule, index };
    }
    return undefined;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(chunks).toString("utf8")).catch((err) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: "server_error" } });
        else res.destroy();
      });
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const url = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && url === "/v1/models") {
      sendJson(res, 200, { object: "list", data: [{ id: "scripted", object: "model", owned_by: "intercode-studio" }] });
      return;
    }
    if (req.method !== "POST" || url !== "/v1/chat/completions") {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${url}`, type: "invalid_request_error" } });
      return;
    }
    let body: { model?: string; messages?: { role: string; content: unknown }[]; stream?: boolean; stream_options?: { include_usage?: boolean } };
    try {
      body = JSON.parse(raw);
    } catch {
      sendJson(res, 400, { error: { message: "request body is not JSON", type: "invalid_request_error" } });
      return;
    }
    const messages: ChatMessageIn[] = (body.messages ?? []).map((m) => ({ role: m.role, content: contentText(m.content) }));
    const stream = body.stream === true;
    const headerTask = req.headers["x-ic-task"];
    const taskId = typeof headerTask === "string" ? headerTask : undefined;
    const turn = messages.filter((m) => m.role === "assistant").length;
    if (script.apiKey !== undefined && req.headers.authorization !== `Bearer ${script.apiKey}`) {
      requests.push({ taskId, turn, stream, outcome: "401" });
      sendJson(res, 401, UNAUTHORIZED);
      return;
    }
    const found = findRule(messages, taskId);
    const ctx: ReplyContext = { messages, turn, taskId };

    let text: string;
    if (!found) {
      if (script.fallback === undefined) {
        requests.push({ taskId, turn, stream, outcome: "no-rule" });
        sendJson(res, 404, { error: { message: "no scripted reply matches this conversation", type: "invalid_request_error" } });
        return;
      }
      text = typeof script.fallback === "function" ? script.fallback(ctx) : script.fallback;
    } else {
      const { rule, index } = found;
      for (const [fi, fault] of (rule.faults ?? []).entries()) {
        if (fault.turn !== undefined && fault.turn !== turn) continue;
        const key = `${index}:${fi}:${fault.turn ?? turn}`;
        const n = attempts.get(key) ?? 0;
        if (n >= fault.times) continue;
        attempts.set(key, n + 1);
        requests.push({ taskId, turn, stream, outcome: fault.kind });
        injectFault(res, fault, stream);
        return;
      }
      text = Array.isArray(rule.replies) ? rule.replies[Math.min(turn, rule.replies.length - 1)]! : rule.replies(ctx);
    }
    requests.push({ taskId, turn, stream, outcome: "ok" });
    if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));

    const promptTokens = estimateTokens(messages.map((m) => m.content).join("\n"));
    const completionTokens = estimateTokens(text);
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const id = `chatcmpl-scripted-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? "scripted";
    if (!stream) {
      sendJson(res, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage,
      });
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
    const base = { id, object: "chat.completion.chunk", created, model };
    send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    // A few pieces, so a client sees real incremental deltas.
    const size = Math.max(16, Math.ceil(text.length / 4));
    for (let i = 0; i < text.length; i += size) {
      send({ ...base, choices: [{ index: 0, delta: { content: text.slice(i, i + size) }, finish_reason: null }] });
    }
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
    if (body.stream_options?.include_usage) send({ ...base, choices: [], usage });
    res.end("data: [DONE]\n\n");
  }

  function injectFault(res: http.ServerResponse, fault: Fault, stream: boolean): void {
    switch (fault.kind) {
      case "401":
        sendJson(res, 401, UNAUTHORIZED);
        return;
      case "refusal": {
        // OpenAI's shape: the refusal in its own field, the reply stopped by the content filter.
        const base = { id: "chatcmpl-refused", created: 0, model: "scripted" };
        if (!stream) {
          sendJson(res, 200, {
            ...base,
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: null, refusal: REFUSAL }, finish_reason: "content_filter" }],
          });
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(
          `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", refusal: REFUSAL }, finish_reason: null }] })}\n\n`,
        );
        res.write(
          `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "content_filter" }] })}\n\n`,
        );
        res.end("data: [DONE]\n\n");
        return;
      }
      case "429":
        res.writeHead(429, { "content-type": "application/json", "retry-after": String(fault.retryAfterSec ?? 0) });
        res.end(JSON.stringify({ error: { message: "rate limited (scripted)", type: "rate_limit_error" } }));
        return;
      case "500":
        sendJson(res, 500, { error: { message: "internal error (scripted)", type: "server_error" } });
        return;
      case "malformed":
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id": "chatcmpl-broken", "choices": [ {"index": 0, "message": ');
        return;
      case "empty":
        sendJson(res, 200, { id: "chatcmpl-empty", object: "chat.completion", created: 0, model: "scripted", choices: [] });
        return;
      case "hang": {
        const timer = setTimeout(() => {
          hanging.delete(timer);
          res.destroy();
        }, fault.hangMs ?? 60_000);
        hanging.add(timer);
        res.on("close", () => {
          clearTimeout(timer);
          hanging.delete(timer);
        });
        return;
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    setScript(next) {
      script = next;
      attempts = new Map();
    },
    async close() {
      for (const t of hanging) clearTimeout(t);
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
