/**
 * `npm run bench -- env [--backend local|docker|all] [--steps N] [--resets N] [--gap MS]`: step,
 * reset and reward latency (median, p95) of each environment on each sandbox backend, each beside
 * a bare baseline measured in the same run: `bwrap ... true` (local), `docker exec <container>
 * true` (docker) and a plain SQLite query (sql), with the ratio to it. Each timed reset and
 * reward comes `--gap` ms after the previous episode's start (default 1500: an episode's turns,
 * during which the warm pool refills); `--gap 0` measures back-to-back resets.
 *
 * Steps are timed twice: the first step right after each reset, while the reset's background work
 * (the warm pool refilling, gold's run in its own sandbox) shares the CPU, and then a run of steps
 * `--gap` ms into the episode, once that work is done. The bash step is also set beside the same
 * action in a persistent bash on the host with no sandbox (same read-eval loop and frame), which is
 * what process creation alone costs on this machine.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import os from "node:os";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { EnvironmentOptions } from "@/lib/env/types";
import { timeSamples } from "@/lib/sandbox/bench";

interface Row {
  env: string;
  backend: string;
  what: string;
  median: number;
  p95: number;
  n: number;
  baseline?: string;
  baselineMedian?: number;
}

/** Median and 95th percentile of a list of milliseconds. */
export function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { median: s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2, p95: at(0.95) };
}

/** `bwrap` with read-only system directories, private /tmp, no network, new PID namespace, running `true`. */
function bwrapBaseline(n: number): Promise<number[]> {
  const args = [
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--unshare-all",
    "--die-with-parent",
    "true",
  ];
  return timeSamples(n, () => spawnSync("bwrap", args));
}

/** `docker exec <container> true` against a running container of the bash image. */
async function dockerBaseline(n: number): Promise<number[] | null> {
  let id = "";
  try {
    id = execFileSync("docker", ["run", "-d", "--rm", "--network", "none", "intercode-studio/bash:latest", "sleep", "600"], { encoding: "utf8" }).trim();
    return await timeSamples(n, () => spawnSync("docker", ["exec", id, "true"]));
  } catch {
    return null;
  } finally {
    if (id) spawnSync("docker", ["rm", "-f", id]);
  }
}

function sqliteBaseline(n: number): Promise<number[]> {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')");
  const stmt = db.prepare("SELECT a, b FROM t WHERE a > 1 ORDER BY a");
  return timeSamples(n, () => stmt.all());
}

const STEP_ACTION: Record<EnvName, string> = { bash: "ls /testbed", python: "1 + 1", sql: "SELECT 1", ctf: "ls" };

/**
 * The bash step with no sandbox: a persistent host bash running the same read-eval loop as the
 * environment's shell (lib/env/shell-session.ts), driven over pipes, with `/testbed` of the task's
 * file system at its host path. What is left is process creation and the pipe round trip.
 */
async function hostShellBaseline(task: Task & { env: "bash" }, n: number): Promise<number[]> {
  const { fileSystemAt } = await import("@/lib/datasets/bash-fs");
  const { shellLoopScript } = await import("@/lib/env/shell-session");
  const root = await fileSystemAt(task.fs, Date.now());
  const nonce = "bench";
  const sh = spawn("bash", ["--norc", "--noprofile", "-c", shellLoopScript()], { stdio: ["pipe", "pipe", "ignore"] });
  sh.stdin.write(nonce + "\0");
  let buf = "";
  let done: (() => void) | null = null;
  sh.stdout.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    if (buf.includes(`\0IC${nonce}Z\0`) && done) {
      buf = "";
      const d2 = done;
      done = null;
      d2();
    }
  });
  const step = (cmd: string) =>
    new Promise<void>((resolve) => {
      done = resolve;
      sh.stdin.write(cmd + "\0");
    });
  try {
    const cmd = STEP_ACTION.bash.replace("/testbed", path.join(root, "testbed"));
    await step(cmd);
    return await timeSamples(n, () => step(cmd));
  } finally {
    sh.kill();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function benchEnv(
  env: EnvName,
  tasks: Task[],
  backend: "local" | "docker",
  opts: { steps: number; resets: number; gapMs: number },
  rows: Row[],
  baseline: { name: string; median: number } | null,
) {
  const { createEnvironment } = await import("@/lib/env/index");
  const options: EnvironmentOptions = { backend };
  if (env === "bash") {
    // Bash golds are checked once per task set (twice run, deterministic ones cached), as at a
    // task set's first use; what that costs a task is its own row.
    const { checkBashGolds } = await import("@/lib/env/bash");
    const bashTasks = tasks.filter((t): t is Task & { env: "bash" } => t.env === "bash");
    const t = performance.now();
    const { cached, atScore } = await checkBashGolds(bashTasks, options);
    const ms = performance.now() - t;
    rows.push({
      env,
      backend,
      what: `gold check of ${bashTasks.length} tasks, per task (${cached} cached, ${atScore} run at the score; 0 ms once checked)`,
      median: ms / bashTasks.length,
      p95: ms / bashTasks.length,
      n: 1,
    });
  }
  const e = await createEnvironment(env, options);
  try {
    // Warm up (the pool fills, gold of the first task runs), then time each reset after a gap.
    await e.reset(tasks[0]!);
    const resets: number[] = [];
    const firstSteps: number[] = [];
    for (let i = 0; i < opts.resets; i++) {
      await sleep(opts.gapMs);
      const t = performance.now();
      await e.reset(tasks[i % tasks.length]!);
      resets.push(performance.now() - t);
      firstSteps.push(...(await timeSamples(1, () => e.step(STEP_ACTION[env]))));
    }
    await sleep(opts.gapMs);
    const steps = await timeSamples(opts.steps, () => e.step(STEP_ACTION[env]));
    // Reward: a task's first evaluation, then the same task played again (sql and python cache gold's
    // result per task; bash reads a deterministic gold's from the cache and runs any other at the
    // score, in a sandbox opened with the episode's first action).
    const first: number[] = [];
    const cached: number[] = [];
    // Bash: which of the first rewards read gold from the cache and which ran it in a seat.
    const goldFrom: Record<string, number[]> = {};
    for (let i = 0; i < Math.min(10, tasks.length); i++) {
      for (const into of [first, cached]) {
        await e.reset(tasks[opts.resets + i < tasks.length ? opts.resets + i : i]!);
        await e.step(STEP_ACTION[env]);
        if (into === first) await sleep(opts.gapMs);
        const t = performance.now();
        await e.evaluate();
        const ms = performance.now() - t;
        into.push(ms);
        const from = (e as { lastGoldFrom?: string | null }).lastGoldFrom;
        if (into === first && from) (goldFrom[from] ??= []).push(ms);
      }
    }
    const add = (what: string, ms: number[], b?: { name: string; median: number } | null) =>
      rows.push({
        env,
        backend: env === "sql" ? "sqlite" : backend,
        what,
        ...stats(ms),
        n: ms.length,
        ...(b ? { baseline: b.name, baselineMedian: b.median } : {}),
      });
    add(`reset (after ${opts.gapMs} ms)`, resets, baseline);
    add("step (first, right after reset)", firstSteps, baseline);
    add(`step (${opts.gapMs} ms into the episode)`, steps, baseline);
    add(`reward (first, ${opts.gapMs} ms after reset)`, first);
    for (const [from, ms] of Object.entries(goldFrom))
      add(`  of which gold from ${from === "cache" ? "the cache" : from === "seat" ? "a seat (run at the score)" : from}`, ms);
    add("reward (same task again)", cached);
  } finally {
    await e.close();
  }
}

function printTable(rows: Row[]): void {
  const header = ["env", "backend", "measure", "median ms", "p95 ms", "n", "baseline", "baseline median ms", "ratio"];
  const body = rows.map((r) => [
    r.env,
    r.backend,
    r.what,
    r.median.toFixed(2),
    r.p95.toFixed(2),
    String(r.n),
    r.baseline ?? "-",
    r.baselineMedian !== undefined ? r.baselineMedian.toFixed(2) : "-",
    r.baselineMedian ? (r.median / r.baselineMedian).toFixed(2) + "×" : "-",
  ]);
  const all = [header, ...body];
  const w = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  for (const r of all)
    process.stdout.write(
      r
        .map((c, i) => c.padEnd(w[i]!))
        .join("  ")
        .trimEnd() + "\n",
    );
}

export default async function benchEnvMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      backend: { type: "string", default: "all" },
      steps: { type: "string", default: "50" },
      resets: { type: "string", default: "10" },
      gap: { type: "string", default: "1500" },
      env: { type: "string", default: "bash,python,ctf,sql" },
    },
  });
  const gapMs = Number(values.gap);
  const loadAtStart = os.loadavg();
  const steps = Number(values.steps);
  const resets = Number(values.resets);
  const envs = String(values.env).split(",") as EnvName[];
  const { getSandboxBackend } = await import("@/lib/sandbox");
  const { loadDataset } = await import("@/lib/datasets/registry");
  const backends: ("local" | "docker")[] = [];
  for (const b of values.backend === "all" ? (["local", "docker"] as const) : [values.backend as "local" | "docker"]) {
    const backend = await getSandboxBackend(b).catch(() => null);
    const ok = backend ? await backend.available() : { ok: false as const, reason: "unknown backend" };
    if (ok.ok) backends.push(b);
    else process.stderr.write(`bench env: skipping ${b}: ${"reason" in ok ? ok.reason : ""}\n`);
  }
  const rows: Row[] = [];
  const taskSets: Record<EnvName, string[]> = {
    bash: ["nl2bash-fs1", "demo-bash"],
    python: ["demo-python"],
    ctf: ["demo-ctf"],
    sql: ["demo-sql", "spider-dev"],
  };
  const tasksFor = (env: EnvName): Task[] => {
    for (const name of taskSets[env]) {
      try {
        return loadDataset(name).slice(0, resets + 10);
      } catch {
        /* try the next one */
      }
    }
    return [];
  };
  // What one fork+exec costs on the host right now: a bash step runs its command that way (the
  // issue measured 2 ms on an idle machine), so on a loaded one it bounds the step from below.
  const hostBase = await timeSamples(steps, () => spawnSync("bash", ["-c", "true"]));
  rows.push({ env: "-", backend: "host", what: "bash -c true", ...stats(hostBase), n: hostBase.length });
  for (const backend of backends) {
    const base = backend === "local" ? await bwrapBaseline(steps) : await dockerBaseline(Math.min(steps, 30));
    const baseline = base ? { name: backend === "local" ? "bwrap true" : "docker exec true", median: stats(base).median } : null;
    if (base) rows.push({ env: "-", backend, what: baseline!.name, ...stats(base), n: base.length });
    for (const env of envs.filter((e) => e !== "sql")) {
      const tasks = tasksFor(env);
      if (!tasks.length) {
        process.stderr.write(`bench env: no ${env} tasks, skipped\n`);
        continue;
      }
      process.stderr.write(`bench env: ${env} on ${backend}\n`);
      const first = tasks[0]!;
      if (first.env === "bash" && backend === backends[0]) {
        const host = await hostShellBaseline(first, steps);
        rows.push({ env: "bash", backend: "host", what: `step: ${STEP_ACTION.bash} in a persistent host bash, no sandbox`, ...stats(host), n: host.length });
      }
      await benchEnv(env, tasks, backend, { steps, resets, gapMs }, rows, baseline).catch((err) =>
        process.stderr.write(`bench env: ${env} on ${backend} failed: ${(err as Error).message}\n`),
      );
    }
  }
  if (envs.includes("sql")) {
    const base = await sqliteBaseline(steps * 4);
    const baseline = { name: "plain SQLite query", median: stats(base).median };
    rows.push({ env: "-", backend: "sqlite", what: baseline.name, ...stats(base), n: base.length });
    const tasks = tasksFor("sql");
    if (tasks.length)
      await benchEnv("sql", tasks, "local", { steps, resets, gapMs }, rows, baseline).catch((err) =>
        process.stderr.write(`bench env: sql failed: ${(err as Error).message}\n`),
      );
  }
  printTable(rows);
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
  process.stdout.write(`load average (1, 5, 15 min): ${load(loadAtStart)} at start, ${load(os.loadavg())} at end; ${os.cpus().length} CPUs\n`);
  const { shutdownSandboxBackends } = await import("@/lib/sandbox");
  await Promise.race([shutdownSandboxBackends().catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
  return 0;
}
