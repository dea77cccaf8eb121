/**
 * The replay part of `npm run bench -- viewer` (also alone: `npm run bench -- viewer-replay
 * [--against DIR] [--loads N] [--steps N]`): does a replay cost the same for 10 turns and 20,000?
 *
 * Fills a fresh store with three episodes of the same per-turn shape (about 5 KB of observation a
 * turn): 10 turns, 2,000 turns / 10 MB and 20,000 turns / 100 MB; starts the real server on it and,
 * in chromium, measures for each episode the replay page's HTML, the time from navigation to the
 * first working step (a `j` press moves the replay), a step's latency (a `j` press until the new
 * turn is drawn; median and 90th percentile over 200 steps), the DOM's size and the tab's JS heap
 * after those steps (after a garbage collection); then prints the ratios against the 10-turn
 * episode measured in the same run. With `--against DIR` (a built checkout of another commit, e.g.
 * a worktree of main) the same episodes, in a copy of the store as that code knows it, are measured
 * on its server too, so before and after come from one run.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

/** The episodes measured: name, turns, characters of observation a turn. */
const EPISODES = [
  { key: "10", turns: 10, obs: 5_000 },
  { key: "2000", turns: 2_000, obs: 5_000 },
  { key: "20000", turns: 20_000, obs: 5_000 },
] as const;

const WORDS = ["alpha", "beta", "gamma", "delta", "file.txt", "dir1/", "total", "drwxr-xr-x", "root", "4096", "No such file", "ok"];

/** An observation of `chars` characters, different for every turn (so no layer can share them). */
function observation(turn: number, chars: number): string {
  let s = "";
  let k = turn;
  while (s.length < chars) {
    k = (k * 1103515245 + 12345) & 0x7fffffff;
    s += `${WORDS[k % WORDS.length]} ${k % 1000}${k % 7 === 0 ? "\n" : " "}`;
  }
  return s.slice(0, chars);
}

/** Stores the bench episodes in the store at IC_DB; returns their ids by key. */
async function fillEpisodes(): Promise<Record<string, string>> {
  const { insertEpisodesBulk } = await import("@/lib/db/bulk-import");
  const { withSql } = await import("@/lib/db/sql");
  const ids: Record<string, string> = {};
  for (const e of EPISODES) {
    // In batches of 2,000 turns' worth, so the 100 MB episode is never held twice.
    const turns = Array.from({ length: e.turns }, (_, k) => ({
      index: k,
      actor: "model" as const,
      action: `grep -rn "needle ${k}" /testbed | head -n ${1 + (k % 20)}`,
      observation: observation(k, e.obs),
      ok: k % 9 !== 0,
      reward: k === e.turns - 1 ? 1 : Math.round(((k % 50) / 50) * 100) / 100,
      durationMs: 10 + (k % 90),
    }));
    await insertEpisodesBulk({
      episodes: [
        {
          sourceKey: `bench-replay:${e.key}`,
          environment: "bash",
          dataset: "bench-replay",
          taskId: `long-${e.key}`,
          taskIndex: 0,
          query: `find the needle (${e.turns} turns)`,
          playerKind: "model",
          annotator: null,
          model: "bench-model",
          policy: "try-again",
          turnLimit: e.turns,
          mode: "eval",
          status: "submitted",
          reward: 1,
          success: true,
          solvedAtTurn: e.turns,
          startedAt: Date.now() - 60_000,
          endedAt: Date.now(),
          durationMs: 60_000,
          hardness: null,
          tags: "",
          turns,
        },
      ],
    });
    const row = await withSql((sql) => sql.get<{ id: string }>(`SELECT "id" FROM "Episode" WHERE "sourceKey" = ?`, [`bench-replay:${e.key}`]));
    ids[e.key] = row!.id;
  }
  return ids;
}

/** In the page from its first script on: presses `j` every 5 ms until the replay moved (bench/viewer.ts's probe too). */
export const INTERACTIVE_PROBE = `
  window.__icProbe = {};
  function __icTick() {
    var el = document.querySelector('[data-testid="position"]');
    var pos = el ? el.textContent || "" : "";
    if (pos && pos.indexOf("turn 1 ") !== 0) { window.__icProbe.interactive = performance.now(); return; }
    if (el) window.dispatchEvent(new KeyboardEvent("keydown", { key: "j" }));
    setTimeout(__icTick, 5);
  }
  setTimeout(__icTick, 0);
`;

/**
 * In the page: `n` steps with `j` (`Home` at the last turn, so a short episode steps as often),
 * each timed from the key press until the position says the new turn and its output is in the
 * DOM (not the window's short preview of it: data-partial), then a frame drawn; stops early past `budget` ms (the steps done are printed). A string, so
 * that no bundler helper leaks into the page.
 */
const STEPS = `async ([n, budget]) => {
  const start = performance.now();
  const times = [];
  let maxTurns = 0;
  const pos = () => (document.querySelector('[data-testid="position"]') || {}).textContent || "";
  for (let i = 0; i < n; i++) {
    const before = pos();
    const t0 = performance.now();
    const m = /turn (\\d+) \\/ (\\d+)/.exec(before);
    const last = m && m[1] === m[2];
    window.dispatchEvent(new KeyboardEvent("keydown", { key: last ? "Home" : "j" }));
    for (;;) {
      await new Promise((r) => requestAnimationFrame(() => r()));
      const now = pos();
      if (now !== before && document.querySelector('[data-testid="turn"][data-current="1"]:not([data-partial]) [data-testid="observation"]')) break;
      if (performance.now() - t0 > 30000) throw new Error("a step did not land in 30 s (at " + now + ")");
    }
    times.push(performance.now() - t0);
    maxTurns = Math.max(maxTurns, document.querySelectorAll('[data-testid="turn"]').length);
    if (performance.now() - start > budget) break;
  }
  return { times, maxTurns };
}`;

/** Wall time one episode's steps may take before they stop (the code before this change needs seconds a step). */
const STEP_BUDGET_MS = 120_000;

interface Figures {
  htmlBytes: number;
  firstStep: number[];
  steps: number[];
  domElements: number;
  maxTurnsInDom: number;
  heapBytes: number;
  error?: string;
}

type Ctx = Awaited<ReturnType<typeof import("@/lib/testing/browser").launchBrowser>>["browser"];

/** One episode on one server: HTML, first working step over `loads` loads, `steps` steps, DOM and heap. */
async function measure(ctx: Ctx, base: string, id: string, loads: number, steps: number): Promise<Figures> {
  const res = await fetch(`${base}/episodes/${id}`);
  const htmlBytes = Buffer.byteLength(await res.text());
  const page = await ctx.newPage();
  try {
    await page.addInitScript(INTERACTIVE_PROBE);
    const firstStep: number[] = [];
    for (let i = 0; i < loads; i++) {
      await page.goto(`${base}/episodes/${id}`, { waitUntil: "commit", timeout: 180_000 });
      await page.waitForFunction(() => (window as unknown as { __icProbe?: { interactive?: number } }).__icProbe?.interactive !== undefined, undefined, {
        polling: 20,
        timeout: 180_000,
      });
      firstStep.push(await page.evaluate(() => (window as unknown as { __icProbe: { interactive: number } }).__icProbe.interactive));
    }
    // Steps from turn 1 (a load without the probe's presses).
    const plain = await ctx.newPage();
    try {
      await plain.goto(`${base}/episodes/${id}?turn=1`, { timeout: 180_000 });
      await plain.waitForSelector('[data-testid="replay"][data-ready="1"]', { timeout: 180_000 });
      // The server's HTML is there before React hydrated it: press j until the replay moves, then Home.
      await plain.waitForFunction(
        () => {
          const pos = document.querySelector('[data-testid="position"]')?.textContent ?? "";
          if (!pos.startsWith("turn 1 ")) return true;
          window.dispatchEvent(new KeyboardEvent("keydown", { key: "j" }));
          return false;
        },
        undefined,
        { polling: 50, timeout: 180_000 },
      );
      await plain.evaluate(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "Home" })));
      await plain.waitForFunction(() => (document.querySelector('[data-testid="position"]')?.textContent ?? "").startsWith("turn 1 "), undefined, {
        timeout: 60_000,
      });
      await plain.waitForTimeout(500);
      const { times, maxTurns } = (await plain.evaluate(`(${STEPS})([${steps}, ${STEP_BUDGET_MS}])`)) as { times: number[]; maxTurns: number };
      const cdp = await plain.context().newCDPSession(plain);
      await cdp.send("HeapProfiler.collectGarbage");
      const heap = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
      const domElements = await plain.evaluate(() => document.getElementsByTagName("*").length);
      return { htmlBytes, firstStep, steps: times, domElements, maxTurnsInDom: maxTurns, heapBytes: heap.usedSize };
    } finally {
      await plain.close();
    }
  } catch (err) {
    return { htmlBytes, firstStep: [], steps: [], domElements: NaN, maxTurnsInDom: NaN, heapBytes: NaN, error: (err as Error).message.split("\n")[0] };
  } finally {
    await page.close();
  }
}

/** Starts server.ts of the checkout at `root` (built) on the store `db`. */
async function startAt(root: string, db: string): Promise<{ url: string; stop(): Promise<void> }> {
  const { freePort } = await import("@/lib/testing/studio-server");
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "server.ts"], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", IC_HOST: "127.0.0.1", IC_PORT: String(port), IC_SANDBOX: "local", IC_DB: db },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server at ${root} did not start:\n${out}`)), 120_000);
    child.stdout.on("data", () => out.includes("ready on") && (clearTimeout(timer), resolve()));
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`the server at ${root} exited (${code}):\n${out}`))));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      }),
  };
}

/** A copy of the store at `db` as code without this change's migrations knows it (for --against). */
async function storeForOlderCode(db: string, root: string, dir: string): Promise<string> {
  const copy = path.join(dir, "older.db");
  const { getRawDb } = await import("@/lib/db/sqlite");
  getRawDb().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  fs.copyFileSync(db, copy);
  const known = new Set(fs.readdirSync(path.join(root, "prisma/migrations")));
  const Database = (await import("better-sqlite3")).default;
  const older = new Database(copy);
  try {
    const applied = older.prepare(`SELECT "name" FROM "_studio_migrations"`).all() as { name: string }[];
    for (const { name } of applied) {
      if (known.has(name)) continue;
      // Only this change's own migrations are undone: an index, dropped.
      const sql = fs.readFileSync(path.join("prisma/migrations", name, "migration.sql"), "utf8");
      for (const m of sql.matchAll(/CREATE INDEX "([^"]+)"/g)) older.exec(`DROP INDEX IF EXISTS "${m[1]}"`);
      older.prepare(`DELETE FROM "_studio_migrations" WHERE "name" = ?`).run(name);
    }
  } finally {
    older.close();
  }
  return copy;
}

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(1)} ms` : "–");
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : "–");

function report(label: string, figs: Record<string, Figures>): void {
  console.log(`\n${label}:`);
  console.log(
    `  ${"episode".padEnd(24)} ${"HTML".padStart(11)} ${"first step".padStart(11)} ${"step median".padStart(12)} ${"step p90".padStart(10)} ${"steps".padStart(6)} ${"DOM".padStart(7)} ${"turns in DOM".padStart(13)} ${"JS heap".padStart(10)}`,
  );
  for (const e of EPISODES) {
    const f = figs[e.key];
    if (!f) continue;
    const name = `${e.turns.toLocaleString("en")} turns / ${((e.turns * e.obs) / 1e6).toFixed(e.turns * e.obs < 1e6 ? 2 : 0)} MB`;
    if (f.error) {
      console.log(`  ${name.padEnd(24)} ${kb(f.htmlBytes).padStart(11)}  failed: ${f.error}`);
      continue;
    }
    console.log(
      `  ${name.padEnd(24)} ${kb(f.htmlBytes).padStart(11)} ${ms(median(f.firstStep)).padStart(11)} ${ms(median(f.steps)).padStart(12)} ${ms(pct(f.steps, 0.9)).padStart(10)} ${String(f.steps.length).padStart(6)} ${String(f.domElements).padStart(7)} ${String(f.maxTurnsInDom).padStart(13)} ${`${(f.heapBytes / 1e6).toFixed(1)} MB`.padStart(10)}`,
    );
  }
  const a = figs["10"];
  for (const k of ["2000", "20000"]) {
    const b = figs[k];
    if (!a || !b || b.error) continue;
    console.log(
      `  ratio ${k} / 10 turns: HTML ${ratio(b.htmlBytes, a.htmlBytes)}, first step ${ratio(median(b.firstStep), median(a.firstStep))}, step median ${ratio(median(b.steps), median(a.steps))}, JS heap after the steps ${ratio(b.heapBytes, a.heapBytes)}`,
    );
  }
}

/** Targets of issue 26, checked on this checkout's figures. */
function targets(f: Record<string, Figures>): string[] {
  const out: string[] = [];
  const a = f["10"];
  const b = f["2000"];
  const c = f["20000"];
  const check = (ok: boolean, what: string) => out.push(`${ok ? "ok  " : "MISS"} ${what}`);
  check(a.htmlBytes <= 300 * 1024 && b.htmlBytes <= 300 * 1024, `HTML <= 300 KB for 10 and 2,000 turns (${kb(a.htmlBytes)}, ${kb(b.htmlBytes)})`);
  check(median(b.firstStep) / median(a.firstStep) <= 1.5, `first working step 2,000 / 10 <= 1.5x (${ratio(median(b.firstStep), median(a.firstStep))})`);
  check(median(b.steps) / median(a.steps) <= 1.5, `step median 2,000 / 10 <= 1.5x (${ratio(median(b.steps), median(a.steps))})`);
  check(median(b.steps) <= 50 && median(a.steps) <= 50, `step median <= 50 ms (${ms(median(a.steps))}, ${ms(median(b.steps))})`);
  check(b.heapBytes / a.heapBytes <= 2, `JS heap after the steps 2,000 / 10 <= 2x (${ratio(b.heapBytes, a.heapBytes)})`);
  check(!c.error && c.steps.length > 0, `20,000 turns / 100 MB opens and steps${c.error ? ` (${c.error})` : ""}`);
  return out;
}

/** The replay bench on the store at IC_DB's folder (a fresh one), this checkout and optionally `against`. */
export async function replayBench({ against, loads = 7, steps = 200 }: { against?: string; loads?: number; steps?: number } = {}): Promise<number> {
  const { ensureBuild, ROOT } = await import("@/lib/testing/studio-server");
  const { launchBrowser } = await import("@/lib/testing/browser");
  const { closeStore } = await import("@/lib/db/client");
  const prev = process.env.IC_DB;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-replay-bench-"));
  process.env.IC_DB = path.join(dir, "studio.db");
  const runs: { label: string; root: string; db: string; older?: boolean }[] = [];
  try {
    await closeStore();
    const ids = await fillEpisodes();
    runs.push({ label: `this checkout (${path.basename(ROOT)})`, root: ROOT, db: process.env.IC_DB });
    if (against) {
      const root = path.resolve(against);
      if (!fs.existsSync(path.join(root, "server.ts"))) throw new Error(`--against: ${root} is not a checkout of this project`);
      const r = spawnSync(process.execPath, [path.join(root, "scripts/start.mjs"), "--build-only"], { cwd: root, stdio: "inherit" });
      if (r.status !== 0) throw new Error(`--against: the build of ${root} failed`);
      runs.push({ label: `--against ${root}`, root, db: await storeForOlderCode(process.env.IC_DB, root, dir), older: true });
    }
    await closeStore();
    if (process.env.IC_E2E_BUILD !== "skip") ensureBuild();
    const results: { label: string; figs: Record<string, Figures> }[] = [];
    for (const run of runs) {
      const server = await startAt(run.root, run.db);
      const b = await launchBrowser();
      try {
        // Warm the server (modules, the store).
        await fetch(`${server.url}/episodes/${ids["10"]}`).then((r) => r.text());
        const figs: Record<string, Figures> = {};
        for (const e of EPISODES) {
          // The code before this change builds the whole episode into one page (the issue measured
          // 13.5 MB and an 800 MB tab at 2,000 turns): at 20,000 turns that would take the shared
          // machine's memory, so the older checkout is measured at 10 and 2,000 turns only.
          if (run.older && e.turns > 2_000) continue;
          process.stderr.write(`replay bench: ${run.label}, ${e.turns} turns…\n`);
          figs[e.key] = await measure(b.browser, server.url, ids[e.key], e.turns >= 20_000 ? Math.min(3, loads) : loads, steps);
        }
        results.push({ label: run.label, figs });
      } finally {
        await b.close();
        await server.stop();
      }
    }
    console.log(
      `\nreplay at any size (chromium; first step: navigation start → a j press moves the replay, median of ${loads} loads; steps: ${steps} presses of j from turn 1):`,
    );
    for (const r of results) report(r.label, r.figs);
    console.log(`  (1-minute load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
    console.log("\ntargets (this checkout):");
    for (const line of targets(results[0].figs)) console.log(`  ${line}`);
    return 0;
  } finally {
    await closeStore();
    fs.rmSync(dir, { recursive: true, force: true });
    if (prev === undefined) delete process.env.IC_DB;
    else process.env.IC_DB = prev;
  }
}

export default async function viewerReplayBench(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { against: { type: "string" }, loads: { type: "string", default: "7" }, steps: { type: "string", default: "200" } },
  });
  const loads = Number(values.loads);
  const steps = Number(values.steps);
  if (!Number.isInteger(loads) || loads < 1) throw new Error(`--loads: must be a whole number >= 1 (got ${values.loads})`);
  if (!Number.isInteger(steps) || steps < 1) throw new Error(`--steps: must be a whole number >= 1 (got ${values.steps})`);
  return replayBench({ against: values.against, loads, steps });
}
