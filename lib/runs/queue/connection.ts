import "server-only";
import { Redis } from "ioredis";
import { BadInputError } from "@/lib/errors";

/**
 * The Redis server behind the evaluation queue: its URL checked and redacted, and connections
 * that fail at once instead of retrying forever when nothing answers.
 */

/** How long a start-up check waits for Redis to answer PING before refusing the URL. */
export const REACH_TIMEOUT_MS = 2_000;

/** A queue URL with any password replaced by `***`, for messages and the Run's owner. */
export function redactQueueUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString().replace(/\/$/, "");
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
  }
}

/**
 * Checks a queue URL's form: redis:// or rediss:// with a host.
 * @throws BadInputError naming `where` (the flag or variable it came from).
 */
export function parseQueueUrl(url: string, where: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BadInputError(`not a URL: ${JSON.stringify(redactQueueUrl(url))} (expected redis://host:6379)`, where);
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw new BadInputError(`${redactQueueUrl(url)} is not a redis:// or rediss:// URL`, where);
  if (!u.hostname) throw new BadInputError(`${redactQueueUrl(url)} names no host`, where);
  return url;
}

/**
 * A connection for BullMQ (commands wait for a reconnect instead of failing: a worker rides out
 * a Redis restart).
 */
export function openRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectTimeout: 5_000 });
}

/**
 * Connects once and sends PING, within REACH_TIMEOUT_MS: the check `icstudio eval --queue` and
 * `icstudio worker` make before anything else, so a wrong URL is refused at start, not a hang.
 * @throws BadInputError naming the (redacted) URL and what went wrong.
 */
export async function assertQueueReachable(url: string, where: string, timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
  parseQueueUrl(url, where);
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  let seen: Error | undefined;
  probe.on("error", (err: Error) => (seen ??= err)); // the cause (ECONNREFUSED, ENOTFOUND...); connect() only says it closed
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe.connect().then(() => probe.ping()),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (err) {
    const why = seen?.message ?? (err instanceof Error ? err.message : String(err));
    throw new BadInputError(`the queue at ${redactQueueUrl(url)} cannot be reached: ${why.replace(url, redactQueueUrl(url))}`, where);
  } finally {
    clearTimeout(timer);
    probe.disconnect();
  }
}
