import "server-only";
import { wrapLanguageModel, type LanguageModel } from "ai";
import type { Redis } from "ioredis";
import type { ResolvedModel } from "@/lib/agent/models";

/**
 * Requests per minute per model, shared by every worker on one Redis: a token bucket per model
 * kept in Redis and taken from by one Lua script (atomic, clocked by Redis' TIME so the workers'
 * clocks do not matter). It limits model calls, not jobs: a provider's limit counts requests, and
 * one episode makes up to `turns` of them, so BullMQ's job limiter (jobs per interval, per queue)
 * would be the wrong unit; BullMQ's per-group limiter is a Pro feature.
 *
 * The limits live in a Redis hash (model id -> requests per minute), set by whoever enqueues a run
 * (`icstudio eval --queue ... --rate N`), so every worker obeys the same figure without its own
 * configuration. A model with no entry is not limited.
 */

/** KEYS[1] the limits hash, KEYS[2] the model's bucket; ARGV[1] the model id. Returns ms to wait (0: go). */
const TAKE = `
local rpm = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if not rpm or rpm <= 0 then return 0 end
local rate = rpm / 60000
local cap = math.max(1, math.floor(rpm / 60))
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[2], 'tokens', 'ts')
local tokens = tonumber(b[1]) or cap
local ts = tonumber(b[2]) or now
tokens = math.min(cap, tokens + math.max(0, now - ts) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[2], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[2], math.ceil(cap / rate) + 60000)
return wait
`;

export interface ModelRateLimiter {
  /** Waits until the model may be called once more (resolves at once for an unlimited model). */
  take(model: string, signal?: AbortSignal): Promise<void>;
  /** Sets (or with 0, removes) a model's limit in requests per minute, for every worker. */
  setLimit(model: string, perMinute: number): Promise<void>;
}

export function modelRateLimiter(redis: Redis, prefix: string): ModelRateLimiter {
  const limits = `${prefix}:rate-limits`;
  return {
    async take(model, signal) {
      for (;;) {
        const wait = Number(await redis.eval(TAKE, 2, limits, `${prefix}:bucket:${model}`, model));
        if (wait <= 0) return;
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => (clearTimeout(t), reject(signal!.reason));
          const t = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), wait);
          signal?.addEventListener("abort", onAbort, { once: true });
        });
      }
    },
    async setLimit(model, perMinute) {
      if (perMinute > 0) await redis.hset(limits, model, String(perMinute));
      else await redis.hdel(limits, model);
    },
  };
}

/** A provider error seen by a model wrapped with `limitedModel`, most recent last. */
export interface CallErrors {
  last: unknown;
}

/**
 * The model with every call (generate or stream) first taking a token from the limiter; errors
 * the provider threw are noted in `errors` (the worker decides from them whether a failed episode
 * is worth another try). A model given by name only (a gateway id) is returned as it is.
 */
export function limitedModel(model: ResolvedModel, limiter: ModelRateLimiter, errors: CallErrors): ResolvedModel {
  const lm: LanguageModel = model.languageModel;
  if (typeof lm === "string" || lm.specificationVersion !== "v3") return model;
  const id = model.info.id;
  const note = async <T>(fn: () => PromiseLike<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      errors.last = err;
      throw err;
    }
  };
  return {
    info: model.info,
    languageModel: wrapLanguageModel({
      model: lm,
      middleware: {
        specificationVersion: "v3",
        wrapGenerate: async ({ doGenerate, params }) => {
          await limiter.take(id, params.abortSignal);
          return note(doGenerate);
        },
        wrapStream: async ({ doStream, params }) => {
          await limiter.take(id, params.abortSignal);
          return note(doStream);
        },
      },
    }),
  };
}
