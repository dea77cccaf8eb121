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
import os from "node:os";
import { performance } from "node:perf_hooks";
import { LIST_SORTS, type EpisodeSortKey } from "@/lib/db/episode-filters";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

type ListQuery = Parameters<typeof import("@/lib/db/episodes").listViewerEpisodes>[0];

/**
 * The list pages timed (50 a page), on both engines: every sort the UI offers both ways, every
 * filter (tag, search, status, model, dataset, ...), first pages and deep ones.
 */
const LIST_SCENARIOS: [string, NonNullable<ListQuery>][] = [
  ...Object.entries(LIST_SORTS).flatMap(([url, key]) =>
    (["desc", "asc"] as const).map((dir): [string, NonNullable<ListQuery>] => [`sort ${url} ${dir}`, { sort: key as EpisodeSortKey, dir }]),
  ),
  ["sort date desc, page 100", { page: 100 }],
  ["sort date desc, page 1,000", { page: 1000 }],
  ["sort reward desc, page 100", { sort: "reward", page: 100 }],
  ["sort player asc, page 100", { sort: "player", dir: "asc", page: 100 }],
  ["sort duration asc, page 100", { sort: "durationMs", dir: "asc", page: 100 }],
  ["env=sql, solved=no", { filters: { environment: ["sql"], success: false } }],
  ["env=sql, solved=no, page 100", { filters: { environment: ["sql"], success: false }, page: 100 }],
  ["status=error", { filters: { status: ["error"] } }],
  ["status=abandoned, sort turns asc", { filters: { status: ["abandoned"] }, sort: "turnCount", dir: "asc" }],
  ["dataset=spider-dev, sort task", { filters: { dataset: ["spider-dev"] }, sort: "taskId", dir: "asc" }],
  ["model=gpt-4, policy=react, sort reward", { filters: { model: ["gpt-4"], policy: ["react"] }, sort: "reward" }],
  ["model=claude-3, sort duration asc", { filters: { model: ["claude-3"] }, sort: "durationMs", dir: "asc" }],
  ["player=ann (annotator)", { filters: { annotator: ["ann"] } }],
  ["search 'command not found'", { filters: { search: "command not found" } }],
  // Three words, 1.7% of the store: a walk of 300,000 episodes, or every hit read and sorted.
  ["search 'command not found', page 100", { filters: { search: "command not found" }, page: 100 }],
  ["search 'synt*' (a prefix), by reward, page 200", { filters: { search: "synt*" }, sort: "reward", page: 200 }],
  ["search 'singer' + env=sql", { filters: { search: "singer", environment: ["sql"] } }],
  ["search 'singer', sort reward asc", { filters: { search: "singer" }, sort: "reward", dir: "asc" }],
  ["search 'syntax', page 100", { filters: { search: "syntax" }, page: 100 }],
  // A walk whose order is not the table's: each episode it passes is tested against the search at a random place.
  ["search 'syntax', by duration, page 100", { filters: { search: "syntax" }, sort: "durationMs", dir: "asc", page: 100 }],
  ["tag=timeout", { filters: { tag: "timeout" } }],
  ["tag=gave-up, sort reward", { filters: { tag: "gave-up" }, sort: "reward" }],
  ["tag=query-error, page 20", { filters: { tag: "query-error" }, page: 20 }],
  ["reward 0.2-0.8, turns>=5, invalid>=2", { filters: { rewardMin: 0.2, rewardMax: 0.8, turnsMin: 5, invalidMin: 2 } }],
  ["task=42", { filters: { taskId: ["42"] } }],
];

interface ListTimes {
  /** Per scenario: median ms with the exact count every page took before issue 26, and as the list reads now. */
  exact: number[];
  now: number[];
  /** Per scenario: median ms as the list reads with nothing held (PostgreSQL's marks along deep walks and filters' totals: lib/db/list-held.ts; the same reads as `now` on SQLite). */
  cold: number[];
  /** The exact total, and the total the page now shows (an estimate past COUNT_EXACT_UP_TO). */
  exactTotal: number[];
  nowTotal: string[];
  /** The page's first episode (the engines must agree). */
  firstId: (string | undefined)[];
}

/** Times every list scenario on the store IC_DB names (median of `runs`), both ways, interleaved so load drifts hit both alike. */
async function timeList(runs: number): Promise<ListTimes> {
  const { listViewerEpisodes } = await import("@/lib/db/episodes");
  const { clearHeld, marksRead } = await import("@/lib/db/list-held");
  const out: ListTimes = { exact: [], now: [], cold: [], exactTotal: [], nowTotal: [], firstId: [] };
  for (const [, q] of LIST_SCENARIOS) {
    // One read untimed first: each pool connection's statements and caches, the pages' first touch.
    await listViewerEpisodes(q);
    const tc: number[] = [];
    const te: number[] = [];
    const tn: number[] = [];
    let exactTotal = 0;
    let nowTotal = "";
    let firstId: string | undefined;
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      exactTotal = (await listViewerEpisodes({ ...q, exactCount: true })).total;
      te.push(performance.now() - t);
      // Nothing held (a page and filter not read since the store last changed); the marks it leaves are read before the next.
      clearHeld();
      t = performance.now();
      await listViewerEpisodes(q);
      tc.push(performance.now() - t);
      await marksRead();
      t = performance.now();
      const p = await listViewerEpisodes(q);
      tn.push(performance.now() - t);
      nowTotal = p.totalExact ? p.total.toLocaleString("en") : `~${p.total.toLocaleString("en")}`;
      firstId = p.rows[0]?.id;
    }
    out.exact.push(median(te));
    out.now.push(median(tn));
    out.cold.push(median(tc));
    out.exactTotal.push(exactTotal);
    out.nowTotal.push(nowTotal);
    out.firstId.push(firstId);
  }
  return out;
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
  const cache = !args.includes("--no-cache");
  const runsIdx = args.indexOf("--runs");
  const runs = runsIdx >= 0 ? Number(args[runsIdx + 1]) : 7;
  const { sqliteListStore, pgListStore } = await import("./list-store");
  const filled = (engine: string, s: { fillS: number | null }) =>
    console.log(
      s.fillS === null
        ? `${engine}: ${n.toLocaleString("en")} episodes from the cache (--no-cache fills afresh)`
        : `${engine}: filled ${n.toLocaleString("en")} episodes in ${s.fillS.toFixed(1)} s`,
    );
  let pg: ListTimes | null = null;
  if (pgUrl) {
    const store = await pgListStore(pgUrl, n, { cache });
    filled("PostgreSQL", store);
    try {
      pg = await timeList(runs);
    } finally {
      await store.release();
    }
  } else console.log("no PostgreSQL (set IC_TEST_PG_URL or --pg-url; scripts/start-postgres.sh prints it): its columns are left empty");
  const store = await sqliteListStore(n, { cache });
  filled("SQLite", store);
  try {
    const { getReplayDataById } = await import("@/lib/db/viewer-queries");
    const { getRawDb } = await import("@/lib/db/sqlite");
    const { COUNT_EXACT_UP_TO } = await import("@/lib/db/episode-filters");
    const lite = await timeList(runs);
    console.log(`\nlist query (50 a page) at ${n.toLocaleString("en")} episodes, median of ${runs} runs, ms:`);
    console.log(
      `  exact = the page with an exact count ("count exactly"); now = as the list reads by default (counted up to ${COUNT_EXACT_UP_TO.toLocaleString("en")}, estimated past it)`,
    );
    const f = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(1)).padStart(8);
    console.log(
      "  cold = PostgreSQL with nothing held (the first read of a deep page or a filter since the store last changed: a walk from the head, a count; marks and the total are held after it, lib/db/list-held.ts)",
    );
    const head = (xs: string[]) => xs.map((x) => x.padStart(8)).join(" ");
    console.log(`  ${"scenario".padEnd(40)} ${head(["sqlite", "sqlite", "pg", "pg", "pg", "pg/sqlite", "pg/sqlite"])}  matches (shown now)`);
    console.log(`  ${"".padEnd(40)} ${head(["exact", "now", "exact", "cold", "now", "cold", "now"])}`);
    LIST_SCENARIOS.forEach(([name], i) => {
      const ratio = pg ? `${(pg.now[i]! / lite.now[i]!).toFixed(2)}x` : "-";
      const ratioCold = pg ? `${(pg.cold[i]! / lite.now[i]!).toFixed(2)}x` : "-";
      if (pg && pg.exactTotal[i] !== lite.exactTotal[i]) console.log(`  (!) ${name}: ${lite.exactTotal[i]} match on SQLite, ${pg.exactTotal[i]} on PostgreSQL`);
      if (pg && pg.firstId[i] !== lite.firstId[i])
        console.log(`  (!) ${name}: the page starts with ${lite.firstId[i]} on SQLite, ${pg.firstId[i]} on PostgreSQL`);
      console.log(
        `  ${name.padEnd(40)} ${f(lite.exact[i])} ${f(lite.now[i])} ${f(pg?.exact[i])} ${f(pg?.cold[i])} ${f(pg?.now[i])} ${ratioCold.padStart(8)} ${ratio.padStart(8)}  ${lite.exactTotal[i]!.toLocaleString("en")} (${lite.nowTotal[i]})`,
      );
    });
    const worst = (xs: number[]) => {
      const m = Math.max(...xs);
      return `${m.toFixed(1)} ms (${LIST_SCENARIOS[xs.indexOf(m)]![0]})`;
    };
    const max = (xs: number[]) => Math.max(...xs);
    console.log(
      `  (load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} on ${os.cpus().length} cores at the end)`,
    );
    console.log(`  worst page, SQLite: ${worst(lite.now)}; with an exact count ${worst(lite.exact)} (target <= 100 ms)`);
    if (pg) {
      const ratios = (a: number[]) => a.map((x, i) => x / lite.now[i]!);
      console.log(`  worst page, PostgreSQL: ${worst(pg.now)}; cold ${worst(pg.cold)}; with an exact count ${worst(pg.exact)}`);
      console.log(
        `  ratio PostgreSQL / SQLite: worst page ${(max(pg.now) / max(lite.now)).toFixed(2)}x (target <= 2x), cold ${(max(pg.cold) / max(lite.now)).toFixed(2)}x; largest per-page ratio ${worst(ratios(pg.now)).replace(" ms", "x")}, cold ${worst(ratios(pg.cold)).replace(" ms", "x")}`,
      );
    }
    // Episodes of the bulk writer's seed (the synthetic ones have no Turn rows).
    const ids = (getRawDb().prepare(`SELECT "id" FROM "Episode" WHERE "turnCount" = 10 AND "sourceKey" LIKE 'bench:%' LIMIT 30`).all() as { id: string }[]).map(
      (r) => r.id,
    );
    const rt: number[] = [];
    for (const id of ids) {
      const t = performance.now();
      await getReplayDataById({ id });
      rt.push(performance.now() - t);
    }
    console.log(`\nreplay data of a 10-turn episode: median ${median(rt).toFixed(2)} ms over ${ids.length} episodes; target < 50 ms`);
    if (browser) await browserBench(ids[0]);
  } finally {
    await store.release();
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
      await page.waitForFunction(() => (window as unknown as { __icProbe?: { interactive?: number } }).__icProbe?.interactive !== undefined, undefined, {
        polling: 20,
        timeout: 60_000,
      });
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
    console.log(
      `  server first byte: median ${median(ttfb).toFixed(0)} ms; page main thread: median ${median(cpu).toFixed(0)} ms of CPU, ${median(busy).toFixed(0)} ms busy`,
    );
    console.log(`list page over HTTP (search + filter + sort, whole HTML): median ${median(ssr).toFixed(0)} ms`);
    console.log(
      `  (1-minute load average ${loadAtStart.toFixed(1)} at the start of the browser runs, ${os.loadavg()[0].toFixed(1)} at the end, on ${os.cpus().length} cores)`,
    );
  } finally {
    await b.close();
    await server.stop();
  }
}
