import "server-only";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";
import { getSandboxBackend, type BackendChoice } from "@/lib/sandbox";
import { fileSystemAt, manifestDir } from "./bash-fs";

/**
 * Gold check of the bash file systems: runs a gold command in a fresh copy of its file system,
 * in a sandbox of the Studio's (lib/sandbox) whose root is that copy, from "/" as InterCode's
 * gold runs, and reports what it printed and which paths it changed. Used by fs-check.int.test.ts
 * and `scripts/fs-check.mjs`.
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

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_OPTIONAL_LOCKS: "0" };

/** Gold output is kept whole (a gold command may list a whole tree). */
const GOLD_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * One command run inside the sandbox after the gold command: `git status --short`, a record
 * separator, then a digest of the changed paths that still exist (relative names, raw modes, link
 * targets, file contents, directories recursively in name order), so the digests of two copies compare.
 */
const STATUS_AND_DIGEST = String.raw`
cd / || exit 3
st=$(git status --short) || exit 4
printf '%s\n\036\n' "$st"
printf '%s\n' "$st" | while IFS= read -r line; do
  [ -n "$line" ] || continue
  p="${"$"}{line:3}"; p="${"$"}{p#\"}"; p="${"$"}{p%\"}"
  [ -e "$p" ] || [ -L "$p" ] || continue
  find "$p" -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' f; do
    printf '%s\0%s\0' "$f" "$(stat -c %f "$f")"
    if [ -L "$f" ]; then readlink "$f"; elif [ -f "$f" ]; then cat "$f"; fi
  done
done | sha256sum | cut -c1-16
`;

/**
 * Runs `gold` once in a fresh sandbox (lib/sandbox; the local backend unless `backend` says
 * otherwise) over file system `fs` with its times for `nowMs`, the way the bash environment opens
 * one (the same host copy, so the same warm pool): the tree is the sandbox's root and gold runs
 * from "/" as InterCode's does. Then reads which paths it changed and their digest inside the
 * same sandbox.
 */
export async function runGold(fs: string, gold: string | string[], opts: { nowMs: number; timeoutMs?: number; backend?: BackendChoice }): Promise<GoldRun> {
  const command = Array.isArray(gold) ? gold.join(";") : gold;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const hostDir = await fileSystemAt(fs, opts.nowMs);
  const backend = await getSandboxBackend(opts.backend ?? "local");
  const sandbox = await backend.create({ image: "bash", files: { hostDir, mountAt: "/" }, workdir: "/" });
  try {
    const res = await sandbox.exec(["bash", "-c", command], { cwd: "/", timeoutMs, maxOutputBytes: GOLD_OUTPUT_BYTES });
    const after = await sandbox.exec(["bash", "-c", STATUS_AND_DIGEST], { cwd: "/", env: GIT_ENV, maxOutputBytes: GOLD_OUTPUT_BYTES });
    if (after.exitCode !== 0)
      throw new Error(`git status or the changes' digest failed in the sandbox (exit ${after.exitCode}): ${after.output.trim().slice(0, 500)}`);
    const [st = "", digest = ""] = after.stdout.split("\n\u001e\n");
    const status = st ? `${st}\n` : "";
    return {
      stdout: res.stdout,
      stderr: res.stderr,
      exitCode: res.timedOut ? null : res.exitCode,
      timedOut: res.timedOut,
      status,
      changesDigest: digest.trim(),
    };
  } finally {
    await sandbox.close();
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
  opts: { timeoutMs?: number; backend?: BackendChoice } = {},
): Promise<GoldCheck> {
  const a = await runGold(fs, task.gold, { nowMs, ...opts });
  // A run that timed out says enough; do not wait for it twice.
  const b = a.timedOut ? a : await runGold(fs, task.gold, { nowMs, ...opts });
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
