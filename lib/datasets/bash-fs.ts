import "server-only";
import { execFile } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { config } from "@/lib/config";
import { NotFoundError } from "@/lib/errors";
import { DATASETS_DIR, varDir } from "./paths";
import { applyTimes, manifestHash, manifestTimes, materializeManifest, readManifest, type FsManifest, type PathTimes } from "./fs-manifest";

const run = promisify(execFile);

/**
 * The project's bash task file systems.
 *
 * Each is built from a manifest (datasets/bash/<name>.json) into var/fs/<name>/, a directory
 * meant to be the sandbox's root "/": it holds the task tree (testbed/, system/, workspace/, ...),
 * a `.gitignore` listing the system directories (SYSTEM_DIRS) and a git repository committed in
 * that initial state, the way InterCode's image runs `git init` at "/". A sandbox binds a private
 * copy of it at "/" and lays the host's system directories over it read-only; `git status --short`
 * in the copy then lists the paths an episode changed, named as InterCode names them
 * ("testbed/dir1/abc.txt", "backup1.tar").
 */

/** The four file systems of InterCode's NL2Bash tasks. */
export const FS_NAMES = ["fs1", "fs2", "fs3", "fs4"] as const;
export type FsName = (typeof FS_NAMES)[number];

/** Bumped when the builder's output changes for the same manifest. */
const BUILDER_VERSION = "bash-fs/4";

/** Fixed identity and date of the initial commit, so every build yields the same commit. */
export const GIT_ENV = {
  GIT_AUTHOR_NAME: "InterCode Studio",
  GIT_AUTHOR_EMAIL: "fs@intercode-studio.invalid",
  GIT_COMMITTER_NAME: "InterCode Studio",
  GIT_COMMITTER_EMAIL: "fs@intercode-studio.invalid",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** Where manifests live (datasets/bash/). */
export function manifestDir(): string {
  return path.join(DATASETS_DIR, "bash");
}

/** Where built file systems live: var/fs/ (under IC_DATA_DIR when set), or IC_FS_DIR. */
export function buildDir(): string {
  return config().fsDir;
}

/** Files in datasets/bash/ that are not manifests. */
const NOT_MANIFESTS = new Set(["gold-exceptions.json"]);

/** Names of every file system with a manifest: fs1..fs4 and the demo ones. */
export async function listFileSystems(): Promise<string[]> {
  const files = await fsp.readdir(manifestDir());
  return files
    .filter((f) => f.endsWith(".json") && !NOT_MANIFESTS.has(f))
    .map((f) => f.slice(0, -5))
    .sort();
}

const manifestCache = new Map<string, Promise<FsManifest>>();

/** The parsed manifest of a file system; throws NotFoundError for an unknown name. */
export function loadFsManifest(name: string): Promise<FsManifest> {
  if (!/^[a-z0-9-]+$/.test(name)) return Promise.reject(new NotFoundError(`file system "${name}"`));
  let p = manifestCache.get(name);
  if (!p) {
    const file = path.join(manifestDir(), `${name}.json`);
    if (!existsSync(file)) return Promise.reject(new NotFoundError(`file system "${name}" (no ${file})`));
    p = readManifest(file);
    p.catch(() => manifestCache.delete(name));
    manifestCache.set(name, p);
  }
  return p;
}

const building = new Map<string, Promise<string>>();

/**
 * Builds the file system `name` under var/fs/ unless an up-to-date build exists (its manifest
 * hash is stored beside it), and returns its directory: the tree to use as the sandbox root
 * "/", with `.git` at its top. Do not run actions in it: copy it with `cloneFileSystem`.
 * Concurrent callers share one build; a build replaces the old one atomically.
 */
export function ensureFileSystem(name: string): Promise<string> {
  let p = building.get(name);
  if (!p) {
    p = buildIfStale(name).finally(() => building.delete(name));
    building.set(name, p);
  }
  return p;
}

async function buildIfStale(name: string): Promise<string> {
  const m = await loadFsManifest(name);
  const hash = manifestHash(m, BUILDER_VERSION);
  const base = buildDir();
  const dir = path.join(base, name);
  const stamp = path.join(base, `${name}.hash`);
  const current = await fsp.readFile(stamp, "utf8").catch(() => "");
  if (current.trim() === hash && existsSync(path.join(dir, ".git"))) return dir;

  await fsp.mkdir(base, { recursive: true });
  const tmp = await fsp.mkdtemp(path.join(base, `.${name}-build-`));
  try {
    await materializeManifest(m, tmp);
    await fsp.mkdir(path.join(tmp, "root"), { recursive: true });
    const git = (...args: string[]) => run("git", ["-C", tmp, ...args], { env: { ...process.env, ...GIT_ENV } });
    // No template: no sample hooks, a smaller .git to copy for every episode.
    await git("init", "-q", "-b", "main", "--template=");
    await git("add", "-A");
    await git("commit", "-q", "--no-gpg-sign", "-m", `initial state of ${name}`);
    // One pack instead of a loose file per object: fewer files to copy for every episode.
    await git("gc", "-q", "--prune=now");
    await applyTimes(m, tmp, Date.now());
    // mkdtemp made it 0700; it becomes the sandbox's "/", which every user must be able to enter.
    await fsp.chmod(tmp, 0o755);
    await replaceBuiltTree(tmp, dir, stamp, hash);
  } catch (err) {
    await fsp.rm(tmp, { recursive: true, force: true });
    throw err;
  }
  return dir;
}

/**
 * Puts a finished build `tmp` in place of `dir` (renames, so a reader sees the old tree or the new
 * one, never half of either) and records the hash of what it was built from in `stamp`.
 */
export async function replaceBuiltTree(tmp: string, dir: string, stamp: string, hash: string): Promise<void> {
  const old = existsSync(dir) ? `${dir}.old-${process.pid}-${Date.now()}` : null;
  if (old) await fsp.rename(dir, old);
  await fsp.rename(tmp, dir);
  await fsp.writeFile(stamp, hash + "\n");
  if (old) await fsp.rm(old, { recursive: true, force: true });
}

/** Options of `cloneFileSystem`. */
export interface CloneOptions {
  /**
   * Reference time for the manifest's relative times ("-3d"), in ms since the epoch. Give the
   * agent's copy and the gold command's copy of one episode the same value, so both see the
   * same times. Default: now.
   */
  nowMs?: number;
}

/**
 * Makes a private, writable copy of file system `name` at `dest` (created; must not exist or be
 * empty), with the manifest's modes, times and symlinks, and its git repository.
 */
export async function cloneFileSystem(name: string, dest: string, opts: CloneOptions = {}): Promise<void> {
  const src = await ensureFileSystem(name);
  const m = await loadFsManifest(name);
  await fsp.mkdir(dest, { recursive: true });
  await run("cp", ["-a", "--", `${src}/.`, dest]);
  await applyTimes(m, dest, opts.nowMs ?? Date.now());
}

/**
 * Manifest times ("3 days old") are resolved against one clock, renewed hourly and shared by the
 * agent's and gold's copies. Each (file system, clock) gets one host copy with those times set
 * (the sandbox's copy keeps them), so a reset pays nothing for them.
 */
const CLOCK_PERIOD_MS = 3_600_000;
/** The clock period `nowMs` falls in (the start of its hour): the reference time episodes share. */
export function fsClock(nowMs = Date.now()): number {
  return Math.floor(nowMs / CLOCK_PERIOD_MS) * CLOCK_PERIOD_MS;
}
const timedCopies = new Map<string, Promise<string>>();

/** The host directory of file system `fs` with its times set for `nowMs` (made once, then reused). */
export function fileSystemAt(fs: string, nowMs: number): Promise<string> {
  const key = `${fs}@${nowMs}`;
  let hit = timedCopies.get(key);
  if (!hit) {
    hit = (async () => {
      await ensureFileSystem(fs);
      const base = path.join(varDir(), "fs-times");
      const dest = path.join(base, key);
      // The "done" mark sits beside the copy: inside it, git status would list it.
      const mark = `${dest}.ready`;
      if (!existsSync(mark) || !existsSync(dest)) {
        await fsp.mkdir(base, { recursive: true });
        const tmp = await fsp.mkdtemp(path.join(base, `.${key}-`));
        try {
          await cloneFileSystem(fs, tmp, { nowMs });
          await fsp.rm(dest, { recursive: true, force: true });
          await fsp.rename(tmp, dest);
          await fsp.writeFile(mark, "");
        } catch (err) {
          await fsp.rm(tmp, { recursive: true, force: true });
          throw err;
        }
      }
      // Copies two clock periods old are no longer used by new episodes.
      for (const name of await fsp.readdir(base)) {
        const m = /^(.+)@(\d+)(\.ready)?$/.exec(name);
        if (m && m[1] === fs && Number(m[2]) < nowMs - 2 * CLOCK_PERIOD_MS) {
          timedCopies.delete(`${m[1]}@${m[2]}`);
          await fsp.rm(path.join(base, name), { recursive: true, force: true });
        }
      }
      return dest;
    })();
    hit.catch(() => timedCopies.delete(key));
    timedCopies.set(key, hit);
  }
  return hit;
}

/** The times of every manifest path, for backends that copy the tree themselves (docker). */
export async function fileSystemTimes(name: string, nowMs: number): Promise<PathTimes[]> {
  return manifestTimes(await loadFsManifest(name), nowMs);
}
