import "server-only";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import path from "node:path";
import { BadInputError, NotFoundError, StudioError } from "@/lib/errors";
import { parseDatasetFile } from "./formats";
import { pathToFileURL } from "node:url";
import { intercodeDataDir, REPO_ROOT, spiderSqliteDir } from "./paths";
import { clearDatasetCache, INTERCODE_SETS } from "./registry";
import { buildIntercodeFileSystems, FS_SETUP_FILES, GITIGNORE_NAME } from "./intercode-fs";
import { CTF_ASSETS_REL, CTF_SOLUTIONS_REL } from "./ctf-assets";

/** The published InterCode repository's raw files (data/ of the main branch). */
export const INTERCODE_RAW_BASE = "https://raw.githubusercontent.com/princeton-nlp/intercode/master/data";

/** The Spider databases as a MySQL dump (converted to SQLite after a fetch). */
export const SPIDER_DUMP_REL = "sql/spider/ic_spider_dbs.sql";

/** Every file a fetch brings, relative to the data directory (the CTF task files come besides, a folder a task). */
export const INTERCODE_FILES: readonly string[] = [...INTERCODE_SETS.map((s) => s.rel), SPIDER_DUMP_REL, ...FS_SETUP_FILES];

/**
 * Where a file of the local layout sits in the published repository, when not under data/ as
 * named: the NL2Bash sets are in data/bash/, the file-system setup data in docker/.
 */
function remoteUrl(rel: string): string {
  const repo = INTERCODE_RAW_BASE.replace(/\/data$/, "");
  if (rel.startsWith("nl2bash/fs-setup/")) {
    const name = path.basename(rel);
    return name === GITIGNORE_NAME ? `${repo}/docker/${name}` : `${repo}/docker/bash_scripts/${name}`;
  }
  if (rel.startsWith("nl2bash/")) return `${INTERCODE_RAW_BASE}/bash/${rel}`;
  return `${INTERCODE_RAW_BASE}/${rel}`;
}

/** The published repository's file list (git tree), to find the CTF task files. */
const INTERCODE_TREE_URL = "https://api.github.com/repos/princeton-nlp/intercode/git/trees/master?recursive=1";

export interface FetchReport {
  dir: string;
  files: { rel: string; bytes: number; tasks?: number }[];
  converted?: string;
  /** CTF task folders brought (files in ctf/task_assets/<id>/, write-ups in ctf/solutions/<id>/). */
  ctfTasks?: number;
  /** InterCode's four bash file systems, built (var/fs/intercode-fs<N>). */
  fileSystems?: string[];
  /** Why they were not built, when they were not. */
  fileSystemsError?: string;
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
  if (FS_SETUP_FILES.includes(rel)) {
    const text = readFileSync(file, "utf8");
    if (rel.endsWith(".sh") && !text.startsWith("#!")) throw new BadInputError("does not look like a shell script (no #! line)", file);
    if (!text.trim()) throw new BadInputError("is empty", file);
    return undefined;
  }
  if (rel === SPIDER_DUMP_REL) {
    const head = readFileSync(file, "utf8");
    if (!/CREATE TABLE/i.test(head) || !/INSERT INTO/i.test(head))
      throw new BadInputError("does not look like a MySQL dump (no CREATE TABLE / INSERT INTO)", file);
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
 * (rename), so a failed fetch leaves what was there untouched. Then the Spider dump is converted
 * and InterCode's four bash file systems are built from their setup scripts, each in a sandbox
 * (lib/datasets/intercode-fs.ts).
 */
export async function fetchIntercode(
  opts: {
    from?: string;
    log?: (msg: string) => void;
    convert?: boolean;
    /**
     * The SQL module's conversion (lib/sql/convert-mysql-dump), given by a caller that may import it
     * (this folder may not: lib/sql imports lib/datasets). Without it the module is loaded from its
     * file, which works only where TypeScript files load (tsx, Vitest), not in the compiled CLI.
     */
    converter?: Record<string, unknown>;
    buildFileSystems?: boolean;
    backend?: "local" | "docker" | "auto";
  } = {},
): Promise<FetchReport> {
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
        const url = remoteUrl(rel);
        log(`downloading ${url}`);
        writeFileSync(target, await download(url));
      }
      const tasks = verify(rel, target);
      report.files.push({ rel, bytes: readFileSync(target).length, ...(tasks !== undefined ? { tasks } : {}) });
    }
    report.ctfTasks = await fetchCtfAssets(staging, opts.from, log);
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
  if (opts.convert !== false) report.converted = await convertSpider(path.join(dest, SPIDER_DUMP_REL), log, opts.converter);
  if (opts.buildFileSystems !== false) {
    try {
      report.fileSystems = await buildIntercodeFileSystems({ dataDir: dest, log, backend: opts.backend });
    } catch (err) {
      // The task sets are in place; NL2Bash tasks run on the project's file systems until a build succeeds.
      report.fileSystemsError = (err as Error).message;
      log(
        `InterCode's bash file systems were not built (${report.fileSystemsError}); NL2Bash tasks use the project's own until \`icstudio datasets fetch intercode\` builds them`,
      );
    }
  }
  return report;
}

/**
 * Brings InterCode's CTF task files into `staging`: task_assets/<id>/ of the source holds a task's
 * files and its write-up in solution/. The files go to ctf/task_assets/<id>/ (what a sandbox gets),
 * the write-up apart to ctf/solutions/<id>/ (shown beside an episode after submit, never put in a
 * sandbox). Returns the number of task folders.
 */
async function fetchCtfAssets(staging: string, from: string | undefined, log: (msg: string) => void): Promise<number> {
  const assets = path.join(staging, CTF_ASSETS_REL);
  const solutions = path.join(staging, CTF_SOLUTIONS_REL);
  mkdirSync(assets, { recursive: true });
  mkdirSync(solutions, { recursive: true });
  let count = 0;
  if (from) {
    const src = path.join(path.resolve(from), "ctf", "task_assets");
    if (!existsSync(src)) throw new NotFoundError(`ctf/task_assets under ${from}`, { dir: src });
    for (const id of readdirSync(src)) {
      if (!/^\d+$/.test(id)) continue;
      count++;
      mkdirSync(path.join(assets, id), { recursive: true });
      for (const entry of readdirSync(path.join(src, id))) {
        const to = entry === "solution" ? path.join(solutions, id) : path.join(assets, id, entry);
        cpSync(path.join(src, id, entry), to, { recursive: true, preserveTimestamps: true });
      }
    }
    log(`copied the files of ${count} CTF tasks`);
    return count;
  }
  log(`listing ${INTERCODE_TREE_URL}`);
  const tree = JSON.parse((await download(INTERCODE_TREE_URL)).toString("utf8")) as { tree?: { path: string; type: string }[] };
  const prefix = "data/ctf/task_assets/";
  const ids = new Set<string>();
  for (const item of tree.tree ?? []) {
    if (item.type !== "blob" || !item.path.startsWith(prefix)) continue;
    const [id, ...rest] = item.path.slice(prefix.length).split("/");
    if (!id || !/^\d+$/.test(id) || rest.length === 0) continue;
    ids.add(id);
    const to = rest[0] === "solution" ? path.join(solutions, id, ...rest.slice(1)) : path.join(assets, id, ...rest);
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, await download(`${INTERCODE_RAW_BASE.replace(/\/data$/, "")}/${item.path}`));
  }
  for (const id of ids) mkdirSync(path.join(assets, id), { recursive: true });
  log(`downloaded the files of ${ids.size} CTF tasks`);
  return ids.size;
}

/** The SQL module's conversion loaded from its file, or undefined (logged) when it cannot be. */
async function loadConverter(log: (msg: string) => void): Promise<Record<string, unknown> | undefined> {
  try {
    const file = path.join(REPO_ROOT, "lib/sql/convert-mysql-dump.ts");
    if (!existsSync(file)) throw new Error("file not found");
    return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    log(`Spider conversion skipped: lib/sql/convert-mysql-dump is not available (${(err as Error).message})`);
    return undefined;
  }
}

/** Runs the SQL module's MySQL-dump → SQLite conversion, when that module is present. */
async function convertSpider(dump: string, log: (msg: string) => void, given?: Record<string, unknown>): Promise<string | undefined> {
  const mod = given ?? (await loadConverter(log));
  if (!mod) return undefined;
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
