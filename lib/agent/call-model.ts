import "server-only";
import { APICallError, generateText, streamText, type ModelMessage } from "ai";
import { config } from "@/lib/config";
import { ProviderError } from "@/lib/errors";
import type { ResolvedModel } from "./models";
import { redactSecrets } from "./redact";
import { estimateTokens, type ChatMessage } from "./conversation";

export interface RetryPolicy {
  /** Attempts in all, the first included (default 4). */
  attempts: number;
  /** First back-off (default 500 ms); doubles each retry, with full jitter. */
  baseDelayMs: number;
  /** Longest wait between attempts, retry-after included (default 20 s). */
  maxDelayMs: number;
  /** One attempt's wall time (default 60 s). */
  timeoutMs: number;
}

/** The retry policy of a call that sets none: attempts and time per attempt from IC_MODEL_ATTEMPTS and IC_MODEL_TIMEOUT_MS (lib/config.ts). */
export function defaultRetry(): RetryPolicy {
  const c = config();
  return { attempts: c.modelAttempts, baseDelayMs: 500, maxDelayMs: 20_000, timeoutMs: c.modelTimeoutMs };
}

export interface CallOptions {
  system: string;
  messages: ChatMessage[];
  /** Stream the reply (deltas go to `onDelta`). */
  stream?: boolean;
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** Extra HTTP headers (the scripted server reads `x-ic-task`). */
  headers?: Record<string, string>;
  /** Called before each retry, for logs and tests. */
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

export interface CallResult {
  text: string;
  tokensIn: number;
  tokensOut: number;
  /** Wall time of the successful attempt plus every failed attempt and wait before it. */
  latencyMs: number;
  attempts: number;
}

/** Turns whatever a provider call threw into a ProviderError that says whether a retry may help. */
export function classifyProviderError(err: unknown, timedOut: boolean): ProviderError {
  if (err instanceof ProviderError) return err;
  if (timedOut) return new ProviderError("the model did not answer in time", true, { kind: "timeout" }, { cause: err });
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const retryAfter = parseRetryAfter(err.responseHeaders?.["retry-after"]);
    // A 2xx whose body would not parse is a malformed reply: worth another attempt.
    const malformed = status !== undefined && status < 400;
    const retryable = status === undefined || malformed || status === 408 || status === 409 || status === 429 || status >= 500 || err.isRetryable;
    const kind = malformed ? "malformed" : status === 429 ? "rate_limit" : status !== undefined && status >= 500 ? "server" : "http";
    // No status: the request never got an answer (nothing listening, DNS, TLS).
    const said = status === undefined ? `provider unreachable: ${err.message}` : `provider answered HTTP ${status}: ${err.message}`;
    return new ProviderError(said, retryable, { kind: status === undefined ? "unreachable" : kind, status, retryAfterMs: retryAfter }, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  // Malformed or empty replies, dropped connections: a new attempt may well succeed.
  return new ProviderError(`provider call failed: ${message}`, true, { kind: "malformed" }, { cause: err });
}

function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const sec = Number(value);
  if (Number.isFinite(sec)) return Math.max(0, sec * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Exponential back-off with full jitter, at least what retry-after asked for, at most maxDelayMs. */
export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number, random = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.min(policy.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0));
}

/** A reply the provider cut off by its content filter (or a model's refusal): not worth another attempt. */
function refusalError(text: string): ProviderError {
  const said = text.trim();
  return new ProviderError(`the provider refused to answer${said ? `: ${said.slice(0, 500)}` : " (content filter)"}`, false, { kind: "refused" });
}

async function attemptOnce(model: ResolvedModel, options: CallOptions, timeoutMs: number): Promise<{ text: string; tokensIn?: number; tokensOut?: number }> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const messages: ModelMessage[] = options.messages.map((m) => ({ role: m.role, content: m.content }));
  const common = {
    model: model.languageModel,
    system: options.system,
    messages,
    maxRetries: 0,
    abortSignal: signal,
    maxOutputTokens: model.info.maxOutputTokens,
    headers: options.headers,
  };
  try {
    if (!options.stream) {
      const r = await generateText(common);
      if (r.finishReason === "content-filter") throw refusalError(r.text);
      return { text: r.text, tokensIn: r.usage.inputTokens, tokensOut: r.usage.outputTokens };
    }
    const r = streamText({ ...common, onError: () => {} });
    let text = "";
    for await (const part of r.fullStream) {
      if (part.type === "text-delta") {
        text += part.text;
        options.onDelta?.(part.text);
      } else if (part.type === "error") {
        throw part.error;
      }
    }
    if ((await r.finishReason) === "content-filter") throw refusalError(text);
    const usage = await r.usage;
    return { text, tokensIn: usage.inputTokens, tokensOut: usage.outputTokens };
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason ?? err;
    const e = classifyProviderError(err, timeout.aborted);
    const said = redactSecrets(e.message, model.secrets ?? []);
    throw said === e.message ? e : new ProviderError(said, e.retryable, e.details, { cause: err });
  }
}

/**
 * One model call with our own retries: 429, 5xx, timeouts and malformed or empty replies are
 * retried with exponential back-off and jitter (honouring retry-after); the SDK's own retries are
 * off. Aborting `signal` stops at once and rethrows its reason.
 * @throws ProviderError when the last attempt fails or the error cannot be retried.
 */
export async function callModel(model: ResolvedModel, options: CallOptions): Promise<CallResult> {
  const policy: RetryPolicy = { ...defaultRetry(), ...options.retry };
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await attemptOnce(model, options, policy.timeoutMs);
      const promptChars = options.system + options.messages.map((m) => m.content).join("\n");
      return {
        text: redactSecrets(r.text, model.secrets ?? []),
        tokensIn: r.tokensIn ?? estimateTokens(promptChars),
        tokensOut: r.tokensOut ?? estimateTokens(r.text),
        latencyMs: performance.now() - started,
        attempts: attempt,
      };
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (!err.retryable || attempt >= policy.attempts) {
        throw new ProviderError(
          `${err.message} (after ${attempt} attempt${attempt === 1 ? "" : "s"})`,
          err.retryable,
          { ...err.details, attempts: attempt },
          { cause: err },
        );
      }
      const delayMs = backoffDelay(attempt, policy, err.details?.retryAfterMs as number | undefined);
      options.onRetry?.({ attempt, delayMs, error: err });
      await sleep(delayMs, options.signal);
    }
  }
}
