import "server-only";
import { spawn, execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, promises as fsp, readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";
import { cloneFileSystem, manifestDir } from "./bash-fs";

const run = promisify(execFile);

/**
 * Gold check of the bash file systems: runs a gold command in a fresh copy of its file
 * system, in a bubblewrap sandbox whose root is that copy (system directories read-only, no
 * network, its own PID namespace), from "/" as InterCode's gold runs, and reports what it
 * printed and which paths it changed. Used by fs-check.test.ts and `scripts/fs-check.mjs`.
 */

/**
 * What can be wrong with a gold run. "trivial": the output is what the command prints when it
 * found nothing (a bare 0, or the md5 of empty input), a sign that the tree lacks what it looks for.
 */
export const GOLD_ISSUES = ["exit", "stderr", "empty", "trivial", "nondeterministic", "timeout"] as const;
export type GoldIssue = (typeof GOLD_ISSUES)[number];

/** One run of a gold command. */
export interface GoldRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  /** `git status --short` of the copy afterwards. */
  status: string;
  /** Digest of the contents of every changed path that still exists. */
  changesDigest: string;
}

const PATH_ENV = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** bwrap arguments that make `root` the sandbox's "/" with the host's system directories over it read-only. */
export function bwrapRootArgs(root: string): string[] {
  const args = ["--bind", root, "/"];
  for (const d of ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc"]) {
    const host = `/${d}`;
    if (!existsSync(host)) continue;
    const st = lstatSync(host);
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(host), host);
    else args.push("--ro-bind", host, host);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  args.push("--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--chdir", "/");
  args.push("--clearenv", "--setenv", "PATH", PATH_ENV, "--setenv", "HOME", "/root", "--setenv", "LANG", "C.UTF-8", "--setenv", "USER", "root");
  return args;
}

function execSandboxed(root: string, command: string, timeoutMs: number): Promise<Pick<GoldRun, "stdout" | "stderr" | "exitCode" | "timedOut">> {
  return new Promise((resolve, reject) => {
    const child = spawn("bwrap", [...bwrapRootArgs(root), "bash", "-c", command], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), exitCode: code, timedOut });
    });
  });
}

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_OPTIONAL_LOCKS: "0" };

async function digestPath(root: string, rel: string, h: ReturnType<typeof createHash>): Promise<void> {
  const p = path.join(root, rel);
  const st = await fsp.lstat(p).catch(() => null);
  if (!st) return;
  // Relative names only, so digests of two copies compare.
  h.update(`${rel}\0${st.mode}\0`);
  if (st.isSymbolicLink()) h.update(await fsp.readlink(p));
  else if (st.isFile()) h.update(await fsp.readFile(p));
  else if (st.isDirectory()) for (const c of (await fsp.readdir(p)).sort()) await digestPath(root, path.join(rel, c), h);
}

/** Runs `gold` once in a fresh copy of file system `fs`. */
export async function runGold(fs: string, gold: string | string[], opts: { nowMs: number; timeoutMs?: number }): Promise<GoldRun> {
  const command = Array.isArray(gold) ? gold.join(";") : gold;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `ic-fscheck-${fs}-`));
  try {
    await cloneFileSystem(fs, dir, { nowMs: opts.nowMs });
    const res = await execSandboxed(dir, command, opts.timeoutMs ?? 10_000);
    const { stdout: status } = await run("git", ["-C", dir, "status", "--short"], { env: { ...process.env, ...GIT_ENV } });
    const h = createHash("sha256");
    for (const line of status.split("\n").filter(Boolean)) {
      const rel = line.slice(3).replace(/^"|"$/g, "");
      await digestPath(dir, rel, h);
    }
    const digest = h.digest("hex").slice(0, 16);
    return { ...res, status, changesDigest: digest };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true }).catch(async () => {
      // A gold command may leave a directory without write permission; open it up and retry.
      await run("chmod", ["-R", "u+rwx", dir]).catch(() => undefined);
      await fsp.rm(dir, { recursive: true, force: true });
    });
  }
}

const EMPTY_MD5 = "d41d8cd98f00b204e9800998ecf8427e";

/** Output a command gives when its input was empty: only zeros, or the md5 of nothing. */
export function isTrivialOutput(stdout: string): boolean {
  const t = stdout.trim();
  return /^0(\s+0)*$/.test(t) || t === `${EMPTY_MD5}  -`;
}

function fingerprint(r: GoldRun): string {
  return JSON.stringify([r.stdout, r.stderr, r.exitCode, r.status, r.changesDigest]);
}

/** The result of checking one gold command: two runs on fresh copies, and what is wrong. */
export interface GoldCheck {
  fs: string;
  index: number;
  query: string;
  gold: string | string[];
  run: GoldRun;
  issues: GoldIssue[];
}

/** Runs a gold command twice on fresh copies and lists its issues. */
export async function checkGold(
  fs: string,
  index: number,
  task: { query: string; gold: string | string[] },
  nowMs: number,
  timeoutMs = 10_000,
): Promise<GoldCheck> {
  const a = await runGold(fs, task.gold, { nowMs, timeoutMs });
  // A run that timed out says enough; do not wait for it twice.
  const b = a.timedOut ? a : await runGold(fs, task.gold, { nowMs, timeoutMs });
  const issues: GoldIssue[] = [];
  if (a.timedOut) issues.push("timeout");
  else if (a.exitCode !== 0) issues.push("exit");
  if (a.stderr.trim() !== "") issues.push("stderr");
  if (a.stdout.trim() === "" && a.status.trim() === "") issues.push("empty");
  else if (a.status.trim() === "" && isTrivialOutput(a.stdout)) issues.push("trivial");
  if (fingerprint(a) !== fingerprint(b)) issues.push("nondeterministic");
  return { fs, index, query: task.query, gold: task.gold, run: a, issues };
}

const exceptionSchema = z.object({ allow: z.array(z.enum(GOLD_ISSUES)).min(1), reason: z.string().min(10) });
const exceptionsFileSchema = z.record(z.string(), z.record(z.string().regex(/^\d+$/), exceptionSchema));
export type GoldExceptions = z.infer<typeof exceptionsFileSchema>;

/** Documented exceptions: gold commands that cannot run cleanly by their nature (datasets/bash/gold-exceptions.json). */
export async function loadGoldExceptions(): Promise<GoldExceptions> {
  const file = path.join(manifestDir(), "gold-exceptions.json");
  const parsed = exceptionsFileSchema.safeParse(JSON.parse(await fsp.readFile(file, "utf8")));
  if (!parsed.success) throw new BadInputError(parsed.error.issues[0]!.message, `${file}: ${parsed.error.issues[0]!.path.join(".")}`);
  return parsed.data;
}

const nl2bashSchema = z.array(z.object({ query: z.string(), gold: z.union([z.string(), z.array(z.string())]) }));

/** The NL2Bash tasks of one file system, read from InterCode's data. */
export async function readNl2BashTasks(dataDir: string, fsNumber: 1 | 2 | 3 | 4): Promise<z.infer<typeof nl2bashSchema>> {
  const file = path.join(dataDir, "nl2bash", `nl2bash_fs_${fsNumber}.json`);
  const parsed = nl2bashSchema.safeParse(JSON.parse(await fsp.readFile(file, "utf8")));
  if (!parsed.success) throw new BadInputError(parsed.error.issues[0]!.message, `${file}: ${parsed.error.issues[0]!.path.join(".")}`);
  return parsed.data;
}

/** Runs `fn` over `items` with at most `limit` at a time, keeping order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}
