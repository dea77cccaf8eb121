import "server-only";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import path from "node:path";
import { BadInputError, NotFoundError, StudioError } from "@/lib/errors";
import { parseDatasetFile } from "./formats";
import { pathToFileURL } from "node:url";
import { intercodeDataDir, REPO_ROOT, spiderSqliteDir } from "./paths";
import { clearDatasetCache, INTERCODE_SETS } from "./registry";

/** The published InterCode repository's raw files (data/ of the main branch). */
export const INTERCODE_RAW_BASE = "https://raw.githubusercontent.com/princeton-nlp/intercode/master/data";

/** The Spider databases as a MySQL dump (converted to SQLite after a fetch). */
export const SPIDER_DUMP_REL = "sql/spider/ic_spider_dbs.sql";

/** Every file a fetch brings, relative to the data directory. */
export const INTERCODE_FILES: readonly string[] = [...INTERCODE_SETS.map((s) => s.rel), SPIDER_DUMP_REL];

export interface FetchReport {
  dir: string;
  files: { rel: string; bytes: number; tasks?: number }[];
  converted?: string;
}

async function download(url: string): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(120_000) });
  } catch (err) {
    throw new StudioError("internal", `download of ${url} failed: ${(err as Error).message}`, { url });
  }
  if (!res.ok) throw new StudioError("internal", `download of ${url} failed: HTTP ${res.status}`, { url, status: res.status });
  return Buffer.from(await res.arrayBuffer());
}

/** Checks a fetched file before it may replace anything: task files must parse, the dump must look like one. */
function verify(rel: string, file: string): number | undefined {
  if (rel === SPIDER_DUMP_REL) {
    const head = readFileSync(file, "utf8");
    if (!/CREATE TABLE/i.test(head) || !/INSERT INTO/i.test(head)) throw new BadInputError("does not look like a MySQL dump (no CREATE TABLE / INSERT INTO)", file);
    return undefined;
  }
  const set = INTERCODE_SETS.find((s) => s.rel === rel)!;
  const tasks = parseDatasetFile(file, { dataset: set.name, format: set.format, fs: set.fs, env: set.env });
  if (tasks.length === 0) throw new BadInputError("holds no tasks", file);
  return tasks.length;
}

/**
 * Fetches InterCode's task sets into var/datasets/intercode (or $IC_DATA_DIR/datasets/intercode):
 * from GitHub, or with `from` from a local directory laid out like InterCode's data/. Every file is
 * verified in a staging directory first; only then does the staging directory replace the old one
 * (rename), so a failed fetch leaves what was there untouched. Then the Spider dump is converted.
 */
export async function fetchIntercode(opts: { from?: string; log?: (msg: string) => void; convert?: boolean } = {}): Promise<FetchReport> {
  const log = opts.log ?? (() => {});
  const dest = intercodeDataDir();
  const parent = path.dirname(dest);
  mkdirSync(parent, { recursive: true });
  const staging = path.join(parent, `.intercode-staging-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  const report: FetchReport = { dir: dest, files: [] };
  try {
    for (const rel of INTERCODE_FILES) {
      const target = path.join(staging, rel);
      mkdirSync(path.dirname(target), { recursive: true });
      if (opts.from) {
        const src = path.join(path.resolve(opts.from), rel);
        if (!existsSync(src)) throw new NotFoundError(`${rel} under ${opts.from}`, { file: src });
        copyFileSync(src, target);
        log(`copied ${rel}`);
      } else {
        const url = `${INTERCODE_RAW_BASE}/${rel}`;
        log(`downloading ${url}`);
        writeFileSync(target, await download(url));
      }
      const tasks = verify(rel, target);
      report.files.push({ rel, bytes: readFileSync(target).length, ...(tasks !== undefined ? { tasks } : {}) });
    }
    const old = existsSync(dest) ? `${dest}.old-${process.pid}-${Date.now()}` : undefined;
    if (old) renameSync(dest, old);
    try {
      renameSync(staging, dest);
    } catch (err) {
      if (old) renameSync(old, dest);
      throw err;
    }
    if (old) rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  clearDatasetCache();
  if (opts.convert !== false) report.converted = await convertSpider(path.join(dest, SPIDER_DUMP_REL), log);
  return report;
}

/** Runs the SQL module's MySQL-dump → SQLite conversion, when that module is present. */
async function convertSpider(dump: string, log: (msg: string) => void): Promise<string | undefined> {
  let mod: Record<string, unknown>;
  try {
    const file = path.join(REPO_ROOT, "lib/sql/convert-mysql-dump.ts");
    if (!existsSync(file)) throw new Error("file not found");
    mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    log(`Spider conversion skipped: lib/sql/convert-mysql-dump is not available (${(err as Error).message})`);
    return undefined;
  }
  type Convert = (o: { dumpPath: string; outDir: string }) => unknown;
  const fn = (mod.ensureConverted ?? mod.convertMysqlDump) as Convert | undefined;
  if (typeof fn !== "function") {
    log("Spider conversion skipped: lib/sql/convert-mysql-dump exports no conversion function");
    return undefined;
  }
  const outDir = typeof mod.spiderSqliteDir === "function" ? (mod.spiderSqliteDir as () => string)() : spiderSqliteDir();
  log(`converting the Spider databases to SQLite in ${outDir}`);
  await fn({ dumpPath: dump, outDir });
  return outDir;
}
