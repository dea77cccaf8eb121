/**
 * `npm run bench -- scale [section ...] [--episodes N] [--files F] [--pg-url URL]`: the Studio past
 * one process (issue 16). Sections (all by default):
 * - store: import speed and episode-list latency at N episodes (default 100,000) on SQLite and on
 *   PostgreSQL (IC_TEST_PG_URL or --pg-url; a schema of its own, dropped after), with the
 *   PostgreSQL/SQLite ratio. The same synthetic InterCode-shaped logs and list pages as
 *   `bench store`. `--episodes 5000` gives a quick run.
 * Each section prints one table: measure, then its figures.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { syntheticFile } from "./store";

type Table = string[][];
type Section = (opts: ScaleOptions) => Promise<Table>;
interface ScaleOptions {
  episodes: number;
  files: number;
  pgUrl: string | undefined;
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
async function measureStore(opts: ScaleOptions): Promise<{ importRate: number; total: number; pages: Array<{ ms: number; matches: number }> }> {
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
    const pages: Array<{ ms: number; matches: number }> = [];
    for (const [, input] of LIST_PAGES) {
      const runs: number[] = [];
      let matches = 0;
      for (let i = 0; i < 21; i++) {
        const t0 = performance.now();
        const page = await listEpisodes({ pageSize: 50, ...input });
        runs.push(performance.now() - t0);
        matches = page.total;
      }
      pages.push({ ms: median(runs), matches });
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
      if (p && p.matches !== l.matches) throw new Error(`bench scale: ${label} matched ${l.matches} on SQLite but ${p.matches} on PostgreSQL`);
      rows.push([`${label} (${l.matches} match), median ms`, l.ms.toFixed(2), p ? p.ms.toFixed(2) : "-", ratio(p?.ms, l.ms)]);
    });
    return rows;
  } finally {
    if (saved === undefined) delete process.env.IC_DB;
    else process.env.IC_DB = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The sections, in the order they run; each prints its own table. */
export const SECTIONS: Record<string, Section> = {
  store: storeSection,
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
    options: { episodes: { type: "string", default: "100000" }, files: { type: "string", default: "20" }, "pg-url": { type: "string" } },
  });
  const episodes = Number(values.episodes);
  const files = Math.min(Number(values.files), Math.max(1, episodes));
  if (!Number.isInteger(episodes) || episodes < 1) throw new Error(`--episodes must be a positive integer, got ${values.episodes}`);
  if (!Number.isInteger(files) || files < 1) throw new Error(`--files must be a positive integer, got ${values.files}`);
  const names = positionals.length ? positionals : Object.keys(SECTIONS);
  for (const n of names) if (!Object.hasOwn(SECTIONS, n)) throw new Error(`bench scale: unknown section ${JSON.stringify(n)} (one of ${Object.keys(SECTIONS).join(", ")})`);
  const { config } = await import("@/lib/config");
  const opts: ScaleOptions = { episodes, files, pgUrl: values["pg-url"] ?? config().testPgUrl };
  for (const n of names) {
    const rows = await SECTIONS[n](opts);
    printTable(`scale: ${n} (${os.cpus().length} cores, node ${process.version}, load ${os.loadavg()[0].toFixed(1)})`, rows);
  }
  return 0;
}
