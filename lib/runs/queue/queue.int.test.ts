import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldScript, ruleFor, scriptedReplies } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { config } from "@/lib/config";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { closeStore } from "@/lib/db/client";
import { listRunEpisodeOutcomes, listRunEpisodeRows } from "@/lib/db/run-episodes";
import { getRunByName } from "@/lib/db/runs";
import { buildRunView } from "@/lib/runs/run-view";
import { freePort } from "@/lib/testing/studio-server";
import { BadInputError } from "@/lib/errors";
import { assertQueueReachable, parseQueueUrl } from "./connection";
import { modelRateLimiter } from "./rate-limit";

/**
 * The evaluation queue as it is deployed: a real Redis (scripts/start-redis.sh), `icstudio eval
 * --queue` and two `icstudio worker` processes sharing one SQLite store, bash episodes in the
 * local (bubblewrap) sandbox, the scripted OpenAI-compatible server as the model.
 */

const REPO = path.resolve(__dirname, "../../..");
const REDIS = config().testRedisUrl;
const TASKS = 40;
/** A worker's lease: short, so that a killed worker's job comes back within seconds. */
const LOCK_MS = "8000";

let server: ScriptedServer;
let dir: string;
let dbFile: string;
let taskFile: string;
let tasks: Task[];
const queueName = `test-${process.pid}-${Date.now()}`;
const children = new Set<ChildProcess>();

function icstudio(args: string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "lib/cli/main.ts", ...args], {
    cwd: REPO,
    env: {
      ...process.env,
      IC_DB: dbFile,
      IC_QUEUE_NAME: queueName,
      IC_QUEUE_LOCK_MS: LOCK_MS,
      IC_SANDBOX: "local",
      IC_MODEL_ATTEMPTS: "1",
      IC_QUEUE_BACKOFF_MS: "300",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, done, stderr: () => stderr };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Tasks whose "start" a worker logged without an "end": what it had in flight. */
function inFlight(stderr: string): string[] {
  const started = [...stderr.matchAll(/^start (\S+) /gm)].map((m) => m[1]!);
  const ended = new Set([...stderr.matchAll(/^end {3}(\S+) /gm)].map((m) => m[1]!));
  return started.filter((t) => !ended.has(t));
}

const worker = () => icstudio(["worker", "--queue", REDIS!, "--concurrency", "2", "--backend", "local"]);
const enqueue = (run: string, extra: string[] = []) =>
  icstudio([
    "eval",
    "--env",
    "bash",
    "--dataset",
    taskFile,
    "--policy",
    "single-turn",
    "--base-url",
    server.baseURL,
    "--run",
    run,
    "--queue",
    REDIS!,
    "--watch",
    "--json",
    ...extra,
  ]);

describe.skipIf(!REDIS && !config().requireRedis)("evaluation queue", () => {
  beforeAll(async () => {
    expect(REDIS, 'IC_REQUIRE_REDIS=1 but IC_TEST_REDIS_URL is not set (eval "$(bash scripts/start-redis.sh)")').toBeTruthy();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-queue-"));
    dbFile = path.join(dir, "studio.db");
    process.env.IC_DB = dbFile;
    // 40 bash tasks of our own, each answered by printing its own token (a real sandbox per episode).
    const own = Array.from({ length: TASKS }, (_, i) => ({
      id: `q${String(i).padStart(2, "0")}`,
      query: `Print the token queue-token-${i} [task:q${i}]`,
      gold: `echo queue-token-${i}`,
      fs: "demo",
    }));
    taskFile = path.join(dir, "demo-bash-queue.json");
    fs.writeFileSync(taskFile, JSON.stringify({ env: "bash", description: "queue test tasks", tasks: own }));
    tasks = loadDataset(taskFile);
    server = await startScriptedServer({ rules: [] });
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await server?.close();
    await closeStore();
    if (REDIS) {
      const r = new Redis(REDIS);
      const keys = await r.keys(`icstudio:${queueName}:*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
    }
  });

  it("two worker processes finish a 40-task run, every task once, though one is killed mid-run and a provider error is retried", async () => {
    const script = goldScript("single-turn", tasks);
    // q07's first two calls get HTTP 500 (one model attempt per try here): a failed try is kept as
    // interrupted and the job runs again after its back-off (two, so that one is seen by the
    // surviving worker even when the killed one had taken q07).
    script.rules[7] = ruleFor(tasks[7]!, scriptedReplies("single-turn", tasks[7]!, "solve"), [{ kind: "500", times: 2 }]);
    server.setScript({ ...script, delayMs: 150 });
    const victim = worker();
    const survivor = worker();
    const t0 = Date.now();
    const e = enqueue("queue-two");
    // Kill one worker once it has finished some episodes and has one stored and running.
    let lost: string[] = [];
    await until(
      "the victim to be mid-episode",
      async () => {
        if ((victim.stderr().match(/^end /gm) ?? []).length < 2) return false;
        const run = await getRunByName({ name: "queue-two" });
        const running = new Set((await listRunEpisodeOutcomes({ runId: run!.id })).filter((x) => x.status === "running").map((x) => x.taskId));
        lost = inFlight(victim.stderr()).filter((t) => running.has(t));
        return lost.length > 0;
      },
      120_000,
    );
    const victimDone = (victim.stderr().match(/^end /gm) ?? []).length;
    // The runs page follows the queued run live from the store (owned by the queue, not a process).
    const live = await buildRunView((await getRunByName({ name: "queue-two" }))!.id);
    expect(live).toMatchObject({ live: true, here: false, status: "running", total: TASKS });
    expect(live!.owner).toMatch(/^queue redis:\/\/127\.0\.0\.1:\d+(\/\d+)?#test-/);
    expect(live!.done).toBeGreaterThanOrEqual(2);
    expect(live!.running).toBeGreaterThanOrEqual(1);
    victim.child.kill("SIGKILL");
    const r = await e.done;
    const ms = Date.now() - t0;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ run: "queue-two", episodes: TASKS, solved: TASKS, successRate: 1 });
    expect(r.stderr).toMatch(/watch queue-two: \d+\/40 done · solved \d+ · errors 0 · [\d.–]+\/min · ETA/);
    const run = await getRunByName({ name: "queue-two" });
    expect(run).toMatchObject({ status: "done", total: TASKS, done: TASKS, solved: TASKS, errors: 0, owner: null });
    const eps = await listRunEpisodeOutcomes({ runId: run!.id });
    // Each task finished exactly once; nothing left running.
    expect(
      eps
        .filter((x) => x.status === "submitted")
        .map((x) => x.taskId)
        .sort(),
    ).toEqual(tasks.map((t) => t.id).sort());
    expect(eps.some((x) => x.status === "running")).toBe(false);
    const interrupted = (await listRunEpisodeRows({ runId: run!.id })).filter((x) => x.status === "interrupted");
    // The killed worker's episodes are kept, marked interrupted with the reason.
    expect(lost.length).toBeGreaterThan(0);
    for (const t of lost) expect(interrupted.filter((x) => x.taskId === t && /lost its lease/.test(x.errorReason ?? "")).length, t).toBeGreaterThanOrEqual(1);
    // q07's failed try is kept, marked; any other interrupted episode is a lease lost to a stall
    // (a busy machine can starve a worker's renewals), which the queue also recovers from.
    expect(
      interrupted.filter((x) => x.taskId === "q07" && /HTTP 500.*tried again later by the queue: try [12] of 3/.test(x.errorReason ?? "")).length,
    ).toBeGreaterThanOrEqual(1);
    for (const x of interrupted) expect(x.errorReason).toMatch(/tried again later by the queue|lost its lease/);
    survivor.child.kill("SIGTERM");
    const s = await survivor.done;
    expect(s.code, s.stderr).toBe(0);
    console.log(`queue: 40 tasks on 2 workers, one killed with ${lost.join(", ")} in flight after ${victimDone} episodes: done in ${ms} ms`);
  }, 300_000);

  it("refuses an unreachable queue at start, naming it with the password hidden", async () => {
    const port = await freePort();
    const url = `redis://:hunter2@127.0.0.1:${port}`;
    // The check itself: refused (nothing listening) or no answer (an address that drops packets) within 2 s.
    for (const u of [url, "redis://:hunter2@10.255.255.1:6379"]) {
      const t0 = Date.now();
      const err = await assertQueueReachable(u, "--queue").catch((e: unknown) => e);
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(err).toBeInstanceOf(BadInputError);
      expect((err as Error).message).toMatch(/^--queue: the queue at redis:\/\/:\*\*\*@[\d.]+:\d+ cannot be reached: /);
      expect((err as Error).message).not.toContain("hunter2");
    }
    // As the commands report it: exit status 2, the URL named, the password hidden.
    for (const args of [
      ["eval", "--env", "bash", "--dataset", "demo-bash", "--base-url", "http://127.0.0.1:9/v1", "--queue", url],
      ["worker", "--queue", url],
    ]) {
      const r = await icstudio(args).done;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--queue: the queue at redis://:***@127.0.0.1:${port} cannot be reached: connect ECONNREFUSED`);
      expect(r.stderr).not.toContain("hunter2");
    }
    expect(() => parseQueueUrl("http://127.0.0.1:6379", "--queue")).toThrow(/--queue: http:\/\/127.0.0.1:6379 is not a redis:\/\/ or rediss:\/\/ URL/);
  }, 120_000);

  it("limits a model's calls per minute across connections (one token bucket in Redis)", async () => {
    const a = new Redis(REDIS!);
    const b = new Redis(REDIS!);
    try {
      const prefix = `icstudio:${queueName}`;
      const la = modelRateLimiter(a, prefix);
      const lb = modelRateLimiter(b, prefix);
      await la.setLimit("m", 1200); // 20 a second, a burst of 20
      const t0 = Date.now();
      await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? la : lb).take("m")));
      const ms = Date.now() - t0;
      // 20 at once, the other 10 at 20 a second: about 500 ms.
      expect(ms).toBeGreaterThanOrEqual(400);
      expect(ms).toBeLessThan(3000);
      const t1 = Date.now();
      await la.take("other"); // no limit set: at once
      expect(Date.now() - t1).toBeLessThan(200);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
