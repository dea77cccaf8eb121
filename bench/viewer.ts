/**
 * `npm run bench -- viewer [--episodes N] [--pg-url URL] [--no-browser]`: the trajectory viewer at scale.
 *
 * Fills a fresh store with N (default 1,000,000) synthetic episodes of the InterCode shape (bash,
 * sql, python; models and people; 1-10 turns with actions and observations that full-text search
 * indexes), then measures the median server time of
 *   - the list query under filters, full-text search and sorts (target: worst page <= 100 ms), on
 *     SQLite and, with IC_TEST_PG_URL or --pg-url, on PostgreSQL (a schema of its own filled
 *     with the same episodes, dropped after; target within 2x of SQLite), each page both with
 *     an exact count (as before issue 26) and as now (estimated past COUNT_EXACT_UP_TO), and
 *   - the replay data of a 10-turn episode (target < 50 ms);
 * and, unless --no-browser, starts the real server on that store and measures in chromium the time
 * until the episode page is interactive (a key press moves the replay; target < 1 s); then, unless
 * --no-browser or --no-replay, the replay at any size (bench/viewer-replay.ts: 10, 2,000 and 20,000
 * turns, ratios against the 10-turn episode; `--against DIR` measures a built checkout of another
 * commit in the same run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASH_ACTIONS = ["ls -la /testbed", "find /testbed -name '*.py' | wc -l", "cat /testbed/dir1/notes.txt", "grep -r hello /testbed", "du -sh /testbed/*", "fnd . -type f", "sort /testbed/data.csv | uniq -c"];
const BASH_OBS = ["total 12\ndrwxr-xr-x 2 root root 4096 dir1\n-rw-r--r-- 1 root root 42 data.csv", "17", "\x1b[01;34mdir1\x1b[0m  notes.txt", "bash: fnd: command not found", "cat: nofile: No such file or directory", "4.0K\t/testbed/dir1"];
const SQL_ACTIONS = ["SHOW TABLES", "DESC singer", "SELECT count(*) FROM singer", "SELECT name FROM singer WHERE age > 30 ORDER BY age", "SELECT * FROM concert JOIN stadium ON concert.stadium_id = stadium.id"];
const SQL_OBS = ["[('singer',), ('concert',), ('stadium',)]", "[(6,)]", "Error 1146: Table 'concert_singer.singers' doesn't exist", "[('Joe Sharp',), ('Rose White',)]", "You have an error in your SQL syntax"];
const PY_ACTIONS = ["def add(a, b):\n    return a + b", "print(add(2, 3))", "def is_prime(n):\n    return all(n % i for i in range(2, n))", "print(is_prime(7))"];
const PY_OBS = ["", "5", "True", "Traceback (most recent call last):\nNameError: name 'x' is not defined"];
const MODELS = ["gpt-4", "gpt-3.5", "claude-3", "llama-3-70b", null];
const POLICIES = ["try-again", "react", "plan-solve", "single-turn"];

/** Fills the store (IC_DB) with n synthetic episodes of the InterCode shape. */
export async function fill(n: number): Promise<void> {
  const { insertEpisodesBulk } = await import("@/lib/db/bulk-import");
  const r = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const t0 = Date.now() - n * 60_000;
  const batch = 2000;
  for (let start = 0; start < n; start += batch) {
    const episodes = [];
    for (let i = start; i < Math.min(n, start + batch); i++) {
      const env = pick(["bash", "sql", "python"] as const);
      const model = pick(MODELS);
      const turns = i % 10 === 0 ? 10 : 1 + Math.floor(r() * 10);
      const [acts, obs] = env === "bash" ? [BASH_ACTIONS, BASH_OBS] : env === "sql" ? [SQL_ACTIONS, SQL_OBS] : [PY_ACTIONS, PY_OBS];
      let reward = 0;
      const ts = Array.from({ length: turns }, (_, k) => {
        const o = pick(obs);
        reward = Math.min(1, Math.round((reward + r() * 0.3) * 100) / 100);
        return { index: k, actor: model ? "model" : "human", action: `${pick(acts)} -- step ${k} of episode ${i}`, observation: `${o}\n(${i}:${k})`, ok: !/error|not found|No such|Traceback/i.test(o), reward, durationMs: Math.floor(r() * 2000) };
      });
      const success = reward >= 1 || r() < 0.3;
      const dataset = env === "bash" ? `nl2bash-fs${1 + (i % 4)}` : env === "sql" ? "spider-dev" : "mbpp";
      episodes.push({
        sourceKey: `bench:${i}`,
        environment: env,
        dataset,
        taskId: String(i % 500),
        taskIndex: i % 500,
        query: `${env} task ${i % 500}: ${pick(["count the files", "list singers older than 30", "write a function that adds two numbers", "find python scripts", "show concerts by stadium"])}`,
        playerKind: model ? "model" : "human",
        annotator: model ? null : pick(["ann", "bob", "cyd"]),
        model,
        policy: model ? pick(POLICIES) : "human",
        turnLimit: 10,
        mode: "eval",
        status: "submitted",
        reward: success ? 1 : reward,
        success,
        solvedAtTurn: success ? turns : null,
        startedAt: t0 + i * 60_000,
        endedAt: t0 + i * 60_000 + 30_000,
        durationMs: 1000 + Math.floor(r() * 120_000),
        hardness: env === "sql" ? pick(["easy", "medium", "hard", "extra"]) : null,
        tags: r() < 0.1 ? pick(["timeout", "query-error", "gave-up", "wrong-answer"]) : "",
        turns: ts,
      });
    }
    await insertEpisodesBulk({ episodes });
    if (process.stderr.isTTY) process.stderr.write(`\rfilled ${Math.min(n, start + batch)}/${n}`);
  }
  if (process.stderr.isTTY) process.stderr.write("\n");
}

type ListQuery = Parameters<typeof import("@/lib/db/episodes").listViewerEpisodes>[0];

/** The list pages timed (50 a page), on both engines. */
const LIST_SCENARIOS: [string, NonNullable<ListQuery>][] = [
  ["default (newest first)", {}],
  ["page 100", { page: 100 }],
  ["env=sql, solved=no", { filters: { environment: ["sql"], success: false } }],
  ["model=gpt-4, policy=react, sort reward", { filters: { model: ["gpt-4"], policy: ["react"] }, sort: "reward" }],
  ["search 'command not found'", { filters: { search: "command not found" } }],
  ["search 'singer' + env=sql", { filters: { search: "singer", environment: ["sql"] } }],
  ["tag=timeout", { filters: { tag: "timeout" } }],
  ["sort player asc", { sort: "annotator", dir: "asc" }],
  ["sort duration", { sort: "durationMs" }],
  ["reward 0.2-0.8, turns>=5, invalid>=2", { filters: { rewardMin: 0.2, rewardMax: 0.8, turnsMin: 5, invalidMin: 2 } }],
  ["task=42", { filters: { taskId: ["42"] } }],
];

interface ListTimes {
  /** Per scenario: median ms with the exact count every page took before issue 26, and as the list reads now. */
  exact: number[];
  now: number[];
  /** The exact total, and the total the page now shows (an estimate past COUNT_EXACT_UP_TO). */
  exactTotal: number[];
  nowTotal: string[];
}

/** Times every list scenario on the store IC_DB names (median of `runs`), both ways, interleaved so load drifts hit both alike. */
async function timeList(runs: number): Promise<ListTimes> {
  const { listViewerEpisodes } = await import("@/lib/db/episodes");
  const out: ListTimes = { exact: [], now: [], exactTotal: [], nowTotal: [] };
  for (const [, q] of LIST_SCENARIOS) {
    const te: number[] = [];
    const tn: number[] = [];
    let exactTotal = 0;
    let nowTotal = "";
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      exactTotal = (await listViewerEpisodes({ ...q, exactCount: true })).total;
      te.push(performance.now() - t);
      t = performance.now();
      const p = await listViewerEpisodes(q);
      tn.push(performance.now() - t);
      nowTotal = p.totalExact ? p.total.toLocaleString("en") : `~${p.total.toLocaleString("en")}`;
    }
    out.exact.push(median(te));
    out.now.push(median(tn));
    out.exactTotal.push(exactTotal);
    out.nowTotal.push(nowTotal);
  }
  return out;
}

/** Fills a PostgreSQL schema of its own with the same n episodes, times the list there, and drops it. */
async function pgList(pgUrl: string, n: number, runs: number): Promise<{ times: ListTimes; fillS: number }> {
  const { withPgSchema, dropPgSchema } = await import("@/lib/db/postgres");
  const { closeStore } = await import("@/lib/db/client");
  const saved = process.env.IC_DB;
  const url = withPgSchema(pgUrl, `ic_bench_viewer_${process.pid}`);
  await dropPgSchema(url);
  process.env.IC_DB = url;
  try {
    const tf = performance.now();
    await fill(n);
    const fillS = (performance.now() - tf) / 1000;
    const { getPgPool } = await import("@/lib/db/sql");
    // What autovacuum does to a freshly loaded table (planner statistics, the visibility map), as bench scale does.
    await (await getPgPool(url)).query("VACUUM ANALYZE");
    return { times: await timeList(runs), fillS };
  } finally {
    await closeStore();
    await dropPgSchema(url).catch(() => {});
    process.env.IC_DB = saved;
  }
}

export default async function viewerBench(args: string[]): Promise<number> {
  // The replay part alone, on its own store: `npm run bench -- viewer --replay-only [--against DIR]`.
  if (args.includes("--replay-only")) {
    const { default: viewerReplayBench } = await import("./viewer-replay");
    return viewerReplayBench(args.filter((a) => a !== "--replay-only"));
  }
  const nIdx = args.indexOf("--episodes");
  const n = nIdx >= 0 ? Number(args[nIdx + 1]) : 1_000_000;
  const pgIdx = args.indexOf("--pg-url");
  const pgUrl = pgIdx >= 0 ? args[pgIdx + 1] : process.env.IC_TEST_PG_URL;
  const browser = !args.includes("--no-browser");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-viewer-bench-"));
  process.env.IC_DB = path.join(dir, "studio.db");
  try {
    const tf = performance.now();
    await fill(n);
    const liteFill = (performance.now() - tf) / 1000;
    console.log(`filled ${n.toLocaleString("en")} episodes in ${liteFill.toFixed(1)} s on SQLite`);
    const { getReplayDataById } = await import("@/lib/db/viewer-queries");
    const { getRawDb } = await import("@/lib/db/sqlite");
    const { COUNT_EXACT_UP_TO } = await import("@/lib/db/episode-filters");
    getRawDb().exec("ANALYZE");
    const runs = 9;
    const lite = await timeList(runs);
    const { closeStore } = await import("@/lib/db/client");
    await closeStore();
    let pg: Awaited<ReturnType<typeof pgList>> | null = null;
    if (pgUrl) {
      pg = await pgList(pgUrl, n, runs);
      console.log(`filled ${n.toLocaleString("en")} episodes in ${pg.fillS.toFixed(1)} s on PostgreSQL`);
    } else console.log("no PostgreSQL (set IC_TEST_PG_URL or --pg-url; scripts/start-postgres.sh prints it): its columns are left empty");
    console.log(`\nlist query (50 a page) at ${n.toLocaleString("en")} episodes, median of ${runs} runs, ms:`);
    console.log(`  before = an exact count on every page (as before issue 26); now = counted up to ${COUNT_EXACT_UP_TO.toLocaleString("en")}, estimated past it ("count exactly" asks for the before)`);
    const f = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(1)).padStart(8);
    console.log(`  ${"scenario".padEnd(40)} ${"sqlite".padStart(8)} ${"sqlite".padStart(8)} ${"pg".padStart(8)} ${"pg".padStart(8)} ${"pg/sqlite".padStart(10)}  matches (shown now)`);
    console.log(`  ${"".padEnd(40)} ${"before".padStart(8)} ${"now".padStart(8)} ${"before".padStart(8)} ${"now".padStart(8)} ${"now".padStart(10)}`);
    LIST_SCENARIOS.forEach(([name], i) => {
      const ratio = pg ? `${(pg.times.now[i]! / lite.now[i]!).toFixed(2)}x` : "-";
      if (pg && pg.times.exactTotal[i] !== lite.exactTotal[i]) console.log(`  (!) ${name}: ${lite.exactTotal[i]} match on SQLite, ${pg.times.exactTotal[i]} on PostgreSQL`);
      console.log(`  ${name.padEnd(40)} ${f(lite.exact[i])} ${f(lite.now[i])} ${f(pg?.times.exact[i])} ${f(pg?.times.now[i])} ${ratio.padStart(10)}  ${lite.exactTotal[i]!.toLocaleString("en")} (${lite.nowTotal[i]})`);
    });
    const worst = (xs: number[]) => Math.max(...xs);
    console.log(`  (load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} on ${os.cpus().length} cores at the end)`);
    console.log(`  worst page: SQLite before ${worst(lite.exact).toFixed(1)} ms, now ${worst(lite.now).toFixed(1)} ms (target <= 100 ms)`);
    if (pg) {
      const ratios = pg.times.now.map((x, i) => x / lite.now[i]!);
      console.log(`  worst page: PostgreSQL before ${worst(pg.times.exact).toFixed(1)} ms, now ${worst(pg.times.now).toFixed(1)} ms; worst-page ratio pg/sqlite ${(worst(pg.times.now) / worst(lite.now)).toFixed(2)}x (before ${(worst(pg.times.exact) / worst(lite.exact)).toFixed(2)}x), largest per-page ratio now ${worst(ratios).toFixed(2)}x (target <= 2x)`);
    }
    const ids = (getRawDb().prepare(`SELECT "id" FROM "Episode" WHERE "turnCount" = 10 LIMIT 30`).all() as { id: string }[]).map((r) => r.id);
    const rt: number[] = [];
    for (const id of ids) {
      const t = performance.now();
      await getReplayDataById({ id });
      rt.push(performance.now() - t);
    }
    console.log(`\nreplay data of a 10-turn episode: median ${median(rt).toFixed(2)} ms over ${ids.length} episodes; target < 50 ms`);
    if (browser) await browserBench(ids[0]);
  } finally {
    const { closeStore } = await import("@/lib/db/client");
    await closeStore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (!browser || args.includes("--no-replay")) return 0;
  const aIdx = args.indexOf("--against");
  const { replayBench } = await import("./viewer-replay");
  return replayBench({ against: aIdx >= 0 ? args[aIdx + 1] : undefined });
}

/** The real server on the bench store; chromium opens the episode page and the list. */
async function browserBench(id: string): Promise<void> {
  const { ensureBuild, startServer } = await import("@/lib/testing/studio-server");
  const { launchBrowser } = await import("@/lib/testing/browser");
  // IC_E2E_BUILD=skip serves the existing build as it is (with IC_NEXT_DIST_DIR, a copy of it), as the e2e setup does.
  if (process.env.IC_E2E_BUILD !== "skip") ensureBuild();
  const server = await startServer({ IC_DB: process.env.IC_DB! });
  const b = await launchBrowser();
  try {
    const page = await b.browser.newPage();
    await page.addInitScript((await import("./viewer-replay")).INTERACTIVE_PROBE);
    // Warm the server (first request compiles nothing in production, but loads modules).
    await page.goto(`${server.url}/episodes/${id}`);
    /** In the page: navigation start → a key press moved the replay. */
    const inPage: number[] = [];
    /** From the driver: page.goto → the probe's answer read back (adds the driver's round trips). */
    const driver: number[] = [];
    const ttfb: number[] = [];
    const ssr: number[] = [];
    // The page's main thread from navigation to interactive: its CPU time (Chrome's ThreadTime),
    // which other processes on the machine do not stretch, and its busy wall time (TaskDuration).
    const cpu: number[] = [];
    const busy: number[] = [];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    const metrics = async () => {
      const m = new Map((await cdp.send("Performance.getMetrics")).metrics.map((x) => [x.name, x.value]));
      return { thread: m.get("ThreadTime") ?? 0, task: m.get("TaskDuration") ?? 0 };
    };
    const loadAtStart = os.loadavg()[0];
    // 21 loads: on a shared machine single loads vary by a factor of ten.
    for (let i = 0; i < 21; i++) {
      const m0 = await metrics();
      const t = performance.now();
      await page.goto(`${server.url}/episodes/${id}`, { waitUntil: "commit" });
      await page.waitForFunction(() => (window as unknown as { __icProbe?: { interactive?: number } }).__icProbe?.interactive !== undefined, undefined, { polling: 20, timeout: 60_000 });
      driver.push(performance.now() - t);
      const m1 = await metrics();
      // A navigation that swaps the renderer starts the counters again.
      cpu.push((m1.thread >= m0.thread ? m1.thread - m0.thread : m1.thread) * 1000);
      busy.push((m1.task >= m0.task ? m1.task - m0.task : m1.task) * 1000);
      const r = await page.evaluate(() => ({
        interactive: (window as unknown as { __icProbe: { interactive: number } }).__icProbe.interactive,
        ttfb: (window.performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).responseStart,
      }));
      inPage.push(r.interactive);
      ttfb.push(r.ttfb);
      const t2 = performance.now();
      const res = await fetch(`${server.url}/episodes?q=singer&env=sql&sort=reward`);
      await res.text();
      ssr.push(performance.now() - t2);
    }
    const range = (xs: number[]) => `min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}`;
    console.log(`\nepisode page interactive in chromium (navigation start → a key press moves the replay), ${inPage.length} loads:`);
    console.log(`  in the page: median ${median(inPage).toFixed(0)} ms (${range(inPage)}); target < 1000 ms`);
    console.log(`  seen from the driver (adds Playwright's round trips): median ${median(driver).toFixed(0)} ms (${range(driver)})`);
    console.log(`  server first byte: median ${median(ttfb).toFixed(0)} ms; page main thread: median ${median(cpu).toFixed(0)} ms of CPU, ${median(busy).toFixed(0)} ms busy`);
    console.log(`list page over HTTP (search + filter + sort, whole HTML): median ${median(ssr).toFixed(0)} ms`);
    console.log(`  (1-minute load average ${loadAtStart.toFixed(1)} at the start of the browser runs, ${os.loadavg()[0].toFixed(1)} at the end, on ${os.cpus().length} cores)`);
  } finally {
    await b.close();
    await server.stop();
  }
}
