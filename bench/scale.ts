/**
 * `npm run bench -- scale [section ...] [--episodes N] [--files F] [--pg-url URL] [--tasks N] [--reps R] [--redis URL]`: the Studio past
 * one process (issue 16). Sections (all by default):
 * - store: import speed and episode-list latency at N episodes (default 100,000) on SQLite and on
 *   PostgreSQL (IC_TEST_PG_URL or --pg-url; a schema of its own, dropped after), with the
 *   PostgreSQL/SQLite ratio. The same synthetic InterCode-shaped logs and list pages as
 *   `bench store`. `--episodes 5000` gives a quick run. PostgreSQL's tables are vacuumed and
 *   analyzed after the import (autovacuum's steady state) before the list is timed.
 * - workers: episodes per minute over a run of --tasks bash tasks (default 40; local sandbox, the
 *   scripted model answering at once, Try Again's three turns) played through the evaluation queue
 *   by 1 and by 2 `icstudio worker` processes (4 episodes at once each) on one SQLite store, from
 *   enqueue to the run's end; median of --reps (default 3), and the 2-worker/1-worker ratio;
 * - latency: on an idle worker (in the bench's process, so its events are timed on the same
 *   clock), the time from enqueueing a one-task run to the job being taken, the episode starting
 *   and its first action. Target: first action < 200 ms.
 *   Redis for both: --redis, IC_TEST_REDIS_URL, or one started by scripts/start-redis.sh.
 * Each section prints one table: measure, then its figures.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { syntheticFile } from "./store";

type Table = string[][];
type Section = (opts: ScaleOptions) => Promise<Table>;
interface ScaleOptions {
  episodes: number;
  files: number;
  pgUrl: string | undefined;
  /** The queue sections: tasks per run, repetitions, the Redis server. */
  tasks: number;
  reps: number;
  redis: string | undefined;
}

const ENVS = ["bash", "sql", "python", "ctf"] as const;
const MODELS = ["gpt-4", "gpt-3.5", "text-bison-001", "starchat", "vicuna-13b"];
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const log = (s: string) => process.stderr.write(s + "\n");

/** The list pages timed (as bench/store.ts), each with the store's list call. */
const LIST_PAGES: Array<[string, Record<string, unknown>]> = [
  ["list page: env=sql, unsolved, by reward desc", { filters: { environment: "sql", success: false }, sort: { key: "reward", dir: "desc" } }],
  ["list page: model=gpt-4, by turns asc, page 20", { filters: { model: "gpt-4" }, sort: { key: "turnCount", dir: "asc" }, page: 20 }],
  ["list page: newest first, no filter", { sort: { key: "startedAt", dir: "desc" } }],
  ["list page: full-text search 'syntax near'", { search: "syntax near", sort: { key: "startedAt", dir: "desc" } }],
  ["list page: search 'singer42' + env=bash", { search: "singer42", filters: { environment: "bash" }, sort: { key: "reward", dir: "desc" } }],
];

/** Imports N synthetic episodes into the store IC_DB names and times the list pages; closes the store. */
async function measureStore(opts: ScaleOptions): Promise<{ importRate: number; total: number; pages: Array<{ ms: number; matches: number; exact: boolean }> }> {
  const { importLogText } = await import("@/lib/trajectories/import");
  const { listEpisodes } = await import("@/lib/db/episodes");
  const { closeStore } = await import("@/lib/db/client");
  const per = Math.ceil(opts.episodes / opts.files);
  const rates: number[] = [];
  let total = 0;
  try {
    for (let f = 0; f < opts.files; f++) {
      const env = ENVS[f % ENVS.length];
      const text = syntheticFile(env, f, per);
      const t0 = performance.now();
      const rep = await importLogText(`scale-${f}/ic_${env}_multiturn_${MODELS[f % MODELS.length]}_10_turns.json`, text);
      const ms = performance.now() - t0;
      if (rep.error || rep.rejected.length) throw new Error(`bench import failed: ${rep.error ?? rep.rejected[0].reason}`);
      total += rep.added;
      rates.push((rep.added / ms) * 1000);
      log(`  file ${f + 1}/${opts.files}: ${rep.added} episodes in ${ms.toFixed(0)} ms`);
    }
    const { config } = await import("@/lib/config");
    const store = config().store;
    if (store.kind === "postgresql") {
      // What autovacuum does to a freshly loaded table within a minute or so (statistics for the
      // planner, the visibility map for index-only counts); measured in its steady state.
      const { getPgPool } = await import("@/lib/db/sql");
      await (await getPgPool(store.url)).query("VACUUM ANALYZE");
    }
    const pages: Array<{ ms: number; matches: number; exact: boolean }> = [];
    for (const [, input] of LIST_PAGES) {
      const runs: number[] = [];
      let matches = 0;
      let exact = true;
      for (let i = 0; i < 21; i++) {
        const t0 = performance.now();
        const page = await listEpisodes({ pageSize: 50, ...input });
        runs.push(performance.now() - t0);
        matches = page.total;
        exact = page.totalExact;
      }
      pages.push({ ms: median(runs), matches, exact });
    }
    return { importRate: median(rates), total, pages };
  } finally {
    await closeStore();
  }
}

/** Store: SQLite beside PostgreSQL at the same size. */
async function storeSection(opts: ScaleOptions): Promise<Table> {
  const saved = process.env.IC_DB;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-scale-"));
  try {
    log(`store: ${opts.episodes} episodes into SQLite...`);
    process.env.IC_DB = path.join(dir, "studio.db");
    const lite = await measureStore(opts);
    let pgRes: Awaited<ReturnType<typeof measureStore>> | null = null;
    if (opts.pgUrl) {
      const { withPgSchema, dropPgSchema } = await import("@/lib/db/postgres");
      const url = withPgSchema(opts.pgUrl, `ic_bench_${process.pid}`);
      await dropPgSchema(url);
      log(`store: ${opts.episodes} episodes into PostgreSQL...`);
      process.env.IC_DB = url;
      try {
        pgRes = await measureStore(opts);
      } finally {
        await dropPgSchema(url);
      }
    } else log("store: no PostgreSQL (set IC_TEST_PG_URL or --pg-url): its column is left empty");
    const ratio = (a: number | undefined, b: number) => (a === undefined ? "-" : `${(a / b).toFixed(2)}×`);
    const rows: Table = [["measure", "sqlite", "postgresql", "pg/sqlite"]];
    rows.push([
      `store import, episodes per wall-second (median over ${opts.files} files, ${lite.total} episodes)`,
      lite.importRate.toFixed(0),
      pgRes ? pgRes.importRate.toFixed(0) : "-",
      ratio(pgRes?.importRate, lite.importRate),
    ]);
    LIST_PAGES.forEach(([label], i) => {
      const l = lite.pages[i];
      const p = pgRes?.pages[i];
      // Counts agree; an estimate (the engines estimate differently: PostgreSQL counts a search alone whole) within the sample's 10%.
      const agree = p && (p.exact && l.exact ? p.matches === l.matches : Math.abs(p.matches - l.matches) <= 0.1 * Math.max(p.matches, l.matches));
      if (p && !agree) throw new Error(`bench scale: ${label} matched ${l.matches} on SQLite but ${p.matches} on PostgreSQL`);
      rows.push([`${label} (${l.matches} match), median ms`, l.ms.toFixed(2), p ? p.ms.toFixed(2) : "-", ratio(p?.ms, l.ms)]);
    });
    return rows;
  } finally {
    if (saved === undefined) delete process.env.IC_DB;
    else process.env.IC_DB = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Our own bash tasks, each answered by printing its token (the model's gold under Try Again). */
function writeTasks(dir: string, n: number): string {
  const file = path.join(dir, "demo-bash-scale.json");
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    query: `Print the token scale-token-${i} [task:s${i}]`,
    gold: `echo scale-token-${i}`,
    fs: "demo",
  }));
  fs.writeFileSync(file, JSON.stringify({ env: "bash", description: "bench scale tasks", tasks }));
  return file;
}

function redisUrl(given: string | undefined, fromConfig: string | undefined): string {
  if (given ?? fromConfig) return (given ?? fromConfig)!;
  const r = spawnSync("bash", [path.join(REPO, "scripts/start-redis.sh")], { encoding: "utf8" });
  const m = /IC_TEST_REDIS_URL=(\S+)/.exec(r.stdout ?? "");
  if (!m) throw new Error(`bench scale: no Redis (scripts/start-redis.sh said: ${r.stderr.trim()})`);
  return m[1]!;
}

interface Setup {
  url: string;
  dir: string;
  env: Record<string, string>;
  taskFile: string;
}

async function withSetup<T>(o: ScaleOptions, fn: (s: Setup) => Promise<T>): Promise<T> {
  const { config } = await import("@/lib/config");
  const url = redisUrl(o.redis, config().testRedisUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-queue-"));
  const env = { IC_DB: path.join(dir, "studio.db"), IC_QUEUE_NAME: `bench-${process.pid}`, IC_SANDBOX: "local" };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const { closeStore } = await import("@/lib/db/client");
  try {
    return await fn({ url, dir, env, taskFile: writeTasks(dir, o.tasks) });
  } finally {
    await closeStore();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Prepares a run as `icstudio eval` would and enqueues it; resolves with its id. */
async function enqueue(s: Setup, name: string, baseURL: string, tasks?: string[]): Promise<string> {
  const { prepareRun } = await import("@/lib/runs/prepare-run");
  const { enqueueRun } = await import("@/lib/runs/queue/eval-queue");
  const p = prepareRun(
    {
      env: "bash",
      dataset: s.taskFile,
      selection: tasks ? { kind: "list", tasks } : { kind: "slice", offset: 0 },
      model: "bench",
      policy: "try-again",
      turns: 10,
      concurrency: 1,
      handicap: false,
      refineTurns: 0,
      profile: "studio",
      name,
    },
    { maxSandboxes: 16, launchedFrom: "cli", adhoc: { baseURL, model: "bench" } },
  );
  return (await enqueueRun(p, { url: s.url, adhoc: { baseURL, model: "bench" } })).runId;
}

function startWorkerProcess(s: Setup): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/hooks.mjs", "lib/cli/main.ts", "worker", "--queue", s.url, "--concurrency", "4", "--quiet"],
    {
      cwd: REPO,
      env: { ...process.env, ...s.env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d) => {
      err += d;
      if (/taking jobs/.test(err)) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`bench scale: a worker exited (${code}) before taking jobs: ${err.trim()}`)));
  });
}

async function untilDone(runId: string): Promise<void> {
  const { getRunById } = await import("@/lib/db/runs");
  for (;;) {
    const run = await getRunById({ id: runId });
    if (run && run.status !== "running" && run.status !== "pending") {
      if (run.status !== "done" || run.solved !== run.total)
        throw new Error(`bench scale: run ${run.name} ended ${run.status}, ${run.solved}/${run.total} solved`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Episodes per minute on 1 and 2 worker processes. */
async function workersSection(o: ScaleOptions): Promise<Table> {
  const { startScriptedServer } = await import("@/lib/agent/scripted-server");
  const { goldScript } = await import("@/lib/agent/scripts");
  const { loadDataset } = await import("@/lib/datasets/registry");
  return withSetup(o, async (s) => {
    const server = await startScriptedServer(goldScript("try-again", loadDataset(s.taskFile)));
    const rates: Record<number, number[]> = { 1: [], 2: [] };
    try {
      for (let rep = 0; rep < o.reps; rep++) {
        for (const n of [1, 2]) {
          const workers = await Promise.all(Array.from({ length: n }, () => startWorkerProcess(s)));
          try {
            const t0 = performance.now();
            const runId = await enqueue(s, `bench-${n}w-${rep}`, server.baseURL);
            await untilDone(runId);
            const perMin = (o.tasks / (performance.now() - t0)) * 60_000;
            rates[n]!.push(perMin);
            log(`  ${n} worker${n > 1 ? "s" : ""}, rep ${rep + 1}/${o.reps}: ${perMin.toFixed(1)} episodes/min`);
          } finally {
            await Promise.all(workers.map((w) => new Promise((r) => (w.once("exit", r), w.kill("SIGTERM")))));
          }
        }
      }
    } finally {
      await server.close();
    }
    const one = median(rates[1]!);
    const two = median(rates[2]!);
    return [
      ["measure", "1 worker", "2 workers", "2/1"],
      [
        `episodes per minute (${o.tasks} bash tasks, Try Again, 4 at once per worker, median of ${o.reps})`,
        one.toFixed(1),
        two.toFixed(1),
        `${(two / one).toFixed(2)}×`,
      ],
    ];
  });
}

/** Enqueue to job start, episode start and first action on an idle worker. */
async function latencySection(o: ScaleOptions): Promise<Table> {
  const { startScriptedServer } = await import("@/lib/agent/scripted-server");
  const { goldScript } = await import("@/lib/agent/scripts");
  const { loadDataset } = await import("@/lib/datasets/registry");
  const { startWorker } = await import("@/lib/runs/queue/worker");
  return withSetup(o, async (s) => {
    const tasks = loadDataset(s.taskFile);
    const server = await startScriptedServer(goldScript("try-again", tasks));
    // Times are epoch ms (Date.now()), the clock the job's enqueuedAt is stamped with just before
    // it is added to the queue.
    type Marks = { added?: number; job?: number; episode?: number; action?: number; done?: () => void };
    const marks = new Map<string, Marks>();
    const worker = await startWorker({
      url: s.url,
      concurrency: 1,
      onJob: (e) => {
        const m = marks.get(e.job.taskId);
        if (!m) return;
        m.added ??= e.job.enqueuedAt;
        if (e.type === "start") m.job ??= Date.now();
        else m.done?.();
      },
      onEvent: (job, e) => {
        const m = marks.get(job.taskId);
        if (!m) return;
        if (e.type === "episode-start") m.episode ??= Date.now();
        if (e.type === "action") m.action ??= Date.now();
      },
    });
    await worker.ready;
    const rows = { call: [] as number[], job: [] as number[], episode: [] as number[], action: [] as number[] };
    // One task per run, a different one each time (the marks are keyed by task: the worker may
    // take the job before enqueue returns the run's id).
    const n = Math.min(21, tasks.length - 1);
    try {
      for (let i = 0; i < n + 1; i++) {
        // The worker is idle: the previous job ended; a pause lets its sandbox be put back.
        await new Promise((r) => setTimeout(r, 300));
        const m: Marks = {};
        const ended = new Promise<void>((r) => (m.done = r));
        const taskId = tasks[i]!.id;
        marks.set(taskId, m);
        const t0 = Date.now();
        await enqueue(s, `bench-latency-${i}`, server.baseURL, [taskId]);
        await ended;
        marks.delete(taskId);
        if (i === 0) continue; // the first warms the sandbox pool and the caches
        rows.call.push(m.action! - t0);
        rows.job.push(m.job! - m.added!);
        rows.episode.push(m.episode! - m.added!);
        rows.action.push(m.action! - m.added!);
      }
    } finally {
      await worker.close();
      await server.close();
    }
    const row = (label: string, xs: number[]) => [label, median(xs).toFixed(0), Math.max(...xs).toFixed(0), String(xs.length)];
    return [
      ["measure (idle worker, one-task runs)", "median ms", "max ms", "n"],
      row("job added -> job started on the worker (run read, task checked)", rows.job),
      row("job added -> episode started (stored, sandbox taken)", rows.episode),
      row("job added -> first action (target < 200 ms)", rows.action),
      row("eval --queue call (run opened in the store, job added) -> first action", rows.call),
    ];
  });
}

/** The sections, in the order they run; each prints its own table. */
export const SECTIONS: Record<string, Section> = {
  store: storeSection,
  workers: workersSection,
  latency: latencySection,
};

function printTable(title: string, rows: Table): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  process.stdout.write(`${title}\n`);
  for (const r of rows) process.stdout.write(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ") + "\n");
}

export default async function scaleBench(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      episodes: { type: "string", default: "100000" },
      files: { type: "string", default: "20" },
      "pg-url": { type: "string" },
      tasks: { type: "string", default: "40" },
      reps: { type: "string", default: "3" },
      redis: { type: "string" },
    },
  });
  const episodes = Number(values.episodes);
  const files = Math.min(Number(values.files), Math.max(1, episodes));
  if (!Number.isInteger(episodes) || episodes < 1) throw new Error(`--episodes must be a positive integer, got ${values.episodes}`);
  if (!Number.isInteger(files) || files < 1) throw new Error(`--files must be a positive integer, got ${values.files}`);
  const names = positionals.length ? positionals : Object.keys(SECTIONS);
  for (const n of names)
    if (!Object.hasOwn(SECTIONS, n)) throw new Error(`bench scale: unknown section ${JSON.stringify(n)} (one of ${Object.keys(SECTIONS).join(", ")})`);
  const { config } = await import("@/lib/config");
  const tasks = Number(values.tasks);
  const reps = Number(values.reps);
  if (!Number.isInteger(tasks) || tasks < 2) throw new Error(`--tasks must be an integer of 2 or more, got ${values.tasks}`);
  if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer, got ${values.reps}`);
  const opts: ScaleOptions = { episodes, files, pgUrl: values["pg-url"] ?? config().testPgUrl, tasks, reps, redis: values.redis };
  for (const n of names) {
    const rows = await SECTIONS[n](opts);
    printTable(`scale: ${n} (${os.cpus().length} cores, node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`, rows);
  }
  return 0;
}
