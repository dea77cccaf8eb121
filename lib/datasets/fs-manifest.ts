import "server-only";
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";

/**
 * A file-system manifest: the source of truth for one bash task file system (datasets/bash/<name>.json).
 *
 * Git cannot keep modification times, modes other than +x, empty directories or symlinks
 * reliably, so each tree is described here and materialized by `materializeManifest`.
 * Paths are relative to the sandbox root "/" (e.g. "testbed/dir1/a.txt"), because InterCode's
 * gold commands also write next to the tree (/backup1.tar, /Icon\r, ...) and its git repository
 * sits at "/".
 */

/** A time: an ISO date ("2015-04-02T10:00:00Z") or an offset before the reference time ("-3d", "-2h", "-30m", "-10s"). */
const timeSpecSchema = z.string().regex(/^(-\d+[smhd]|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/, "expected an ISO date ending in Z or an offset such as -3d");

const tarMemberSchema = z.object({
  path: z.string().min(1),
  content: z.string(),
  mode: z
    .string()
    .regex(/^[0-7]{3,4}$/)
    .optional(),
});

const fileEntrySchema = z
  .object({
    path: z.string().min(1),
    type: z.literal("file"),
    /** Literal text. */
    content: z.string().optional(),
    /** Lines of text, joined with "\n" and ended with one. */
    lines: z.array(z.string()).optional(),
    /** Binary content. */
    base64: z.string().optional(),
    /** Generated text: `count` lines from `template`, where {n} is the 1-based line number and {n3} it zero-padded to 3. */
    repeat: z.object({ template: z.string().min(1), count: z.number().int().positive().max(5000) }).optional(),
    /** A tar archive (ustar) of these members. */
    tar: z.array(tarMemberSchema).min(1).optional(),
    /** Compress the content above with gzip (deterministic header). */
    gzip: z.boolean().optional(),
    /** Line endings: "crlf" rewrites every "\n" to "\r\n". */
    eol: z.enum(["lf", "crlf"]).optional(),
    mode: z
      .string()
      .regex(/^[0-7]{3,4}$/)
      .optional(),
    mtime: timeSpecSchema.optional(),
    atime: timeSpecSchema.optional(),
  })
  .strict();

const dirEntrySchema = z
  .object({
    path: z.string().min(1),
    type: z.literal("dir"),
    mode: z
      .string()
      .regex(/^[0-7]{3,4}$/)
      .optional(),
    mtime: timeSpecSchema.optional(),
    atime: timeSpecSchema.optional(),
  })
  .strict();

const symlinkEntrySchema = z
  .object({
    path: z.string().min(1),
    type: z.literal("symlink"),
    target: z.string().min(1),
    mtime: timeSpecSchema.optional(),
  })
  .strict();

export const manifestEntrySchema = z.discriminatedUnion("type", [fileEntrySchema, dirEntrySchema, symlinkEntrySchema]);

export const fsManifestSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9-]+$/),
    description: z.string().min(1),
    /** Top-level directories of the tree the tasks work in, e.g. ["testbed"]. */
    roots: z.array(z.string().regex(/^[A-Za-z0-9._-]+$/)).min(1),
    /** Time given to every entry without its own. */
    defaultMtime: timeSpecSchema,
    entries: z.array(manifestEntrySchema).min(1),
  })
  .strict();

export type ManifestEntry = z.infer<typeof manifestEntrySchema>;
export type FsManifest = z.infer<typeof fsManifestSchema>;

/**
 * Directories of the host system that a sandbox lays over the tree read-only (or as fresh
 * mounts); they are git-ignored so that only the task's own paths count as changes.
 */
export const SYSTEM_DIRS = [
  "bin",
  "boot",
  "dev",
  "etc",
  "home",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "media",
  "mnt",
  "opt",
  "proc",
  "root",
  "run",
  "sbin",
  "srv",
  "sys",
  "tmp",
  "usr",
  "var",
] as const;

/** Parses and checks a manifest; errors name the file and the entry at fault. */
export function parseManifest(raw: unknown, where: string): FsManifest {
  const parsed = fsManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, `${where}: ${issue.path.join(".") || "(root)"}`);
  }
  const m = parsed.data;
  const seen = new Set<string>();
  m.entries.forEach((e, i) => {
    const at = `${where}: entries.${i} (${e.path})`;
    const norm = path.posix.normalize(e.path);
    if (norm !== e.path || e.path.startsWith("/") || e.path.startsWith("..") || e.path.endsWith("/")) {
      throw new BadInputError("path must be relative, normalized and inside the tree", at);
    }
    if (seen.has(e.path)) throw new BadInputError("duplicate path", at);
    seen.add(e.path);
    if (e.path === ".git" || e.path.startsWith(".git/") || e.path === ".gitignore") {
      throw new BadInputError(".git and .gitignore are written by the builder", at);
    }
    if (e.type === "file") {
      const sources = [e.content, e.lines, e.base64, e.repeat, e.tar].filter((s) => s !== undefined).length;
      if (sources > 1) throw new BadInputError("give at most one of content, lines, base64, repeat, tar", at);
    }
  });
  return m;
}

/** Reads and parses a manifest file. */
export async function readManifest(file: string): Promise<FsManifest> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    throw new BadInputError(`cannot read manifest (${(err as Error).message})`, file);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new BadInputError(`invalid JSON (${(err as Error).message})`, file);
  }
  return parseManifest(raw, file);
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Resolves a time spec to seconds since the epoch, relative offsets counted back from `nowMs`. */
export function resolveTime(spec: string, nowMs: number): number {
  const rel = /^-(\d+)([smhd])$/.exec(spec);
  if (rel) return Math.floor(nowMs / 1000) - Number(rel[1]) * UNIT_SECONDS[rel[2]!]!;
  return Math.floor(Date.parse(spec) / 1000);
}

/** Fixed time stamped into generated archives (2021-09-01T08:00:00Z). */
const ARCHIVE_MTIME = 1630483200;

function tarHeader(name: string, size: number, mode: number, mtime: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (s: string, off: number, len: number) => h.write(s.slice(0, len), off, "utf8");
  const oct = (n: number, len: number) => n.toString(8).padStart(len - 1, "0") + "\0";
  if (Buffer.byteLength(name) > 100) throw new BadInputError("tar member name longer than 100 bytes", name);
  put(name, 0, 100);
  put(oct(mode, 8), 100, 8);
  put(oct(0, 8), 108, 8);
  put(oct(0, 8), 116, 8);
  put(oct(size, 12), 124, 12);
  put(oct(mtime, 12), 136, 12);
  h.fill(0x20, 148, 156);
  put("0", 156, 1);
  put("ustar\u000000", 257, 8);
  put("root", 265, 32);
  put("root", 297, 32);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return h;
}

/** A minimal, deterministic ustar archive. */
export function makeTar(members: { path: string; content: string; mode?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const data = Buffer.from(m.content, "utf8");
    parts.push(tarHeader(m.path, data.length, parseInt(m.mode ?? "644", 8), ARCHIVE_MTIME));
    parts.push(data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(1024, 0));
  return Buffer.concat(parts);
}

/** The bytes of a file entry. */
export function fileBytes(e: Extract<ManifestEntry, { type: "file" }>): Buffer {
  let buf: Buffer;
  if (e.tar) buf = makeTar(e.tar);
  else if (e.base64 !== undefined) buf = Buffer.from(e.base64, "base64");
  else {
    let text = "";
    if (e.content !== undefined) text = e.content;
    else if (e.lines) text = e.lines.map((l) => l + "\n").join("");
    else if (e.repeat) {
      const { template, count } = e.repeat;
      for (let n = 1; n <= count; n++) text += template.replaceAll("{n3}", String(n).padStart(3, "0")).replaceAll("{n}", String(n)) + "\n";
    }
    if (e.eol === "crlf") text = text.replaceAll("\n", "\r\n");
    buf = Buffer.from(text, "utf8");
  }
  // gzip's header carries no name and a zero time here, so the bytes are the same on every build.
  if (e.gzip) buf = gzipSync(buf, { level: 9 });
  return buf;
}

/** Every directory the tree holds, listed or implied by a deeper path. */
function allDirs(m: FsManifest): string[] {
  const dirs = new Set<string>();
  for (const e of m.entries) {
    if (e.type === "dir") dirs.add(e.path);
    let p = path.posix.dirname(e.path);
    while (p !== ".") {
      dirs.add(p);
      p = path.posix.dirname(p);
    }
  }
  return [...dirs].sort();
}

/** One path's times, for a backend that applies them itself (e.g. with `touch` in a container). */
export interface PathTimes {
  path: string;
  atime: number;
  mtime: number;
  symlink: boolean;
}

/**
 * The access and modification times of every path in the tree, relative offsets resolved
 * against `nowMs`. Deepest paths first, so that setting them in order leaves directory times intact.
 */
export function manifestTimes(m: FsManifest, nowMs: number): PathTimes[] {
  const byPath = new Map(m.entries.map((e) => [e.path, e] as const));
  const out: PathTimes[] = [];
  const paths = new Set([...m.entries.map((e) => e.path), ...allDirs(m)]);
  for (const p of paths) {
    const e = byPath.get(p);
    const mtime = resolveTime(e?.mtime ?? m.defaultMtime, nowMs);
    const atimeSpec = e && e.type !== "symlink" ? e.atime : undefined;
    out.push({ path: p, mtime, atime: atimeSpec ? resolveTime(atimeSpec, nowMs) : mtime, symlink: e?.type === "symlink" });
  }
  return out.sort((a, b) => b.path.split("/").length - a.path.split("/").length || (a.path < b.path ? -1 : 1));
}

/** Sets the manifest's times on a materialized tree under `root`. */
export async function applyTimes(m: FsManifest, root: string, nowMs: number): Promise<void> {
  for (const t of manifestTimes(m, nowMs)) {
    const p = path.join(root, t.path);
    if (t.symlink) await fsp.lutimes(p, t.atime, t.mtime);
    else await fsp.utimes(p, t.atime, t.mtime);
  }
}

/** Writes the tree's directories, files, modes and symlinks under `root` (which must be empty). Times are left to `applyTimes`. */
export async function materializeManifest(m: FsManifest, root: string): Promise<void> {
  for (const d of allDirs(m)) await fsp.mkdir(path.join(root, d), { recursive: true });
  for (const e of m.entries) {
    const p = path.join(root, e.path);
    if (e.type === "file") {
      await fsp.writeFile(p, fileBytes(e));
      await fsp.chmod(p, parseInt(e.mode ?? "644", 8));
    } else if (e.type === "symlink") {
      await fsp.symlink(e.target, p);
    }
  }
  // Directory modes last: a read-only directory must not stop its own files being written.
  for (const e of m.entries) {
    if (e.type === "dir") await fsp.chmod(path.join(root, e.path), parseInt(e.mode ?? "755", 8));
  }
  for (const r of m.roots) await fsp.mkdir(path.join(root, r), { recursive: true });
  // /.dockerenv: the marker file Docker puts at the root of every container.
  await fsp.writeFile(path.join(root, ".gitignore"), [...SYSTEM_DIRS.map((d) => `/${d}`), "/.dockerenv"].map((p) => `${p}\n`).join(""));
}

/** A digest of everything that decides the built tree (the manifest and the builder's version). */
export function manifestHash(m: FsManifest, builderVersion: string): string {
  return createHash("sha256").update(builderVersion).update("\0").update(JSON.stringify(m)).digest("hex").slice(0, 16);
}
