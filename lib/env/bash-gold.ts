import "server-only";
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { buildDir } from "@/lib/datasets/bash-fs";
import { loadGoldExceptions, type GoldExceptions } from "@/lib/datasets/fs-check";
import { intercodeFsDir, type TaskFileSystem } from "@/lib/datasets/intercode-fs";
import type { BashTask } from "@/lib/datasets/types";
import { getGoldCacheByTask, putGoldCache } from "@/lib/db/gold-cache";
import type { Sandbox } from "@/lib/sandbox/types";
import { snapshotTestbed, type FsSnapshot } from "./bash-score";
import { observationOf } from "./shell-episode";
import { ShellSession } from "./shell-session";

/**
 * Where bash's gold runs for a score under row `bash.gold-run` = `cached-if-deterministic-else-fresh-sandbox`, and
 * its cache. A gold shown to be deterministic (run twice, each in a fresh seat, at the task's first
 * use: the same output and the same file changes) is scored from the cache without a seat; any
 * other runs at the score in a seat opened while the agent works, so that what reads the clock,
 * the load, process ids or the network reads them as the agent's last action did.
 */

/** What gold printed (as the agent's observation is formed) and changed. */
export interface GoldResult {
  output: string;
  snapshot: FsSnapshot;
}

/** A fresh sandbox over the task's file system with a shell started as the agent's is. */
export interface GoldSeat {
  sandbox: Sandbox;
  shell: ShellSession;
}

/** Opens a seat on the sandbox `open` gives. */
export async function openGoldSeat(open: () => Promise<Sandbox>): Promise<GoldSeat> {
  const sandbox = await open();
  try {
    const shell = new ShellSession(sandbox, { cwd: "/" });
    await shell.ready();
    return { sandbox, shell };
  } catch (err) {
    await sandbox.close().catch(() => undefined);
    throw err;
  }
}

/** The command gold runs (InterCode joins a list with ";"). */
export function goldCommand(task: BashTask): string {
  return Array.isArray(task.gold) ? task.gold.join(";") : task.gold;
}

/** Runs gold in a seat as an agent's action runs, then reads what it changed; `cut` when it hit a limit. */
export async function runGold(task: BashTask, seat: GoldSeat): Promise<GoldResult & { cut: boolean }> {
  const { limits } = seat.sandbox;
  const r = await seat.shell.run(goldCommand(task), { timeoutMs: limits.timeoutMs, maxOutputBytes: limits.outputBytes });
  return { output: observationOf(r, limits), snapshot: await snapshotTestbed(seat.sandbox), cut: r.timedOut || r.truncated || r.aborted };
}

/**
 * What a gold reads that a second run a moment later may not see the same (the clock, the load,
 * process ids and the process table, randomness, the host, the network, background jobs). A gold
 * that names one is never cached: a run twice milliseconds apart can agree by chance (`date` within
 * one second, the load average within its 5 s). Wrong positives cost only a seat at the score.
 */
const VOLATILE: { what: string; re: RegExp }[] = [
  // Times shown (ls -l, stat, find -printf %t...) are the clock too: "/" and the mount points are
  // made with the sandbox, so their times are when it started (fs4 2: `ls -ald` of an empty `which` lists "/").
  {
    what: "the clock",
    re: named(
      "date|uptime|timedatectl|hwclock|lastlog|ncal|watch|stat",
      /\$\{?(SECONDS|EPOCHSECONDS|EPOCHREALTIME)\b|%\(|-[amc](min|time)\b|-newer[amc]t\b|\bls\b[^|;&]*\s(-[a-zA-Z]*[lgot]|--full-time|--time)|-f?printf\b[^|;]*%[aAcCtT]/,
      "cal|last|who|w|time|times",
    ),
  },
  {
    what: "the load or the process table",
    re: named(
      "pstree|pgrep|pidof|htop|vmstat|iostat|mpstat|pkill|killall|lsof|fuser|nproc",
      /\/proc\b|\$\{?[$!]|\$\{?(BASHPID|PPID)\b/,
      "ps|top|free|df|jobs|kill",
    ),
  },
  { what: "randomness", re: named("mktemp|shuf|uuidgen|tempfile", /\$\{?S?RANDOM\b|\/dev\/u?random|\brand\b/) },
  {
    what: "the host or the network",
    re: named(
      "curl|wget|dig|nslookup|ping|ssh|scp|sftp|rsync|telnet|ifconfig|netstat|hostname|uname|whoami|getent|printenv",
      /\$\{?HOSTNAME\b|\benv\s*($|[|;&)])/,
      "host|nc|ncat|ftp|ip|ss|route|arp|tty|id",
    ),
  },
  // Actions start in "/": a walk of "/" (a bare "/" argument, or find, grep -r, ls -R, du, tree from
  // the working directory) meets /proc; a single & starts a background job that races the score.
  {
    what: "a walk of / or a background job",
    re: /(^|[\s=])\/(?=$|[\s;|&)])|\bfind\s*(\.(?=[\s;|)]|$)|[-(!]|$)|\bgrep\b[^|;]*\s-[a-zA-Z]*[rR]|\bls\b[^|;]*\s-[a-zA-Z]*R|\b(du|tree)\b|(^|[^&>|])&(?![&>])/,
  },
];

/** A pattern for commands named anywhere (`anywhere`), other patterns (`also`), and short names only where a command starts (`asCommand`). */
function named(anywhere: string, also: RegExp, asCommand?: string): RegExp {
  const start = String.raw`(?:^|[;&|({\`]|\$\(|\b(?:xargs|sudo|exec|nohup|env|command|then|do)\s+(?:-\S+\s+)*)\s*`;
  const parts = [String.raw`\b(?:${anywhere})\b`, also.source];
  if (asCommand) parts.push(String.raw`${start}(?:${asCommand})\b`);
  return new RegExp(parts.join("|"));
}

/** Why a gold cannot be cached by what its command names, or null. */
export function volatileReason(command: string): string | null {
  const hit = VOLATILE.find((v) => v.re.test(command));
  return hit ? `it reads ${hit.what}` : null;
}

/** datasets/bash/gold-exceptions.json, read once. */
let exceptions: Promise<GoldExceptions> | undefined;

/** Why a gold's documented exception keeps it out of the cache (it is nondeterministic or times out), or null. */
async function documentedReason(task: BashTask, fs: TaskFileSystem): Promise<string | null> {
  exceptions ??= loadGoldExceptions().catch(() => ({}));
  const e = (await exceptions)[fs.name]?.[String(task.index)];
  const kept = e?.allow.filter((a) => a === "nondeterministic" || a === "timeout") ?? [];
  return kept.length ? `datasets/bash/gold-exceptions.json documents it as ${kept.join(", ")}` : null;
}

/** What a gold's cached result was computed over: where it ran and on what. */
export interface GoldRunContext {
  fs: TaskFileSystem;
  /** The host tree the sandboxes' root is a copy of (the project's trees carry their clock period in the name). */
  hostDir: string;
  backend: "local" | "docker";
  image: string;
  limits: { timeoutMs: number; outputBytes: number };
}

/** The stamp of the build a tree comes from (InterCode's setup data, or the project's manifest). */
async function buildStamp(fs: TaskFileSystem): Promise<string> {
  const file = fs.source === "intercode" ? `${intercodeFsDir(fs.number!)}.hash` : path.join(buildDir(), `${fs.name}.hash`);
  return (await fsp.readFile(file, "utf8").catch(() => "unbuilt")).trim();
}

/**
 * Everything a cached result depends on: the gold command, the task's tree (its build and, for the
 * project's trees, the clock period its times were set for), backend, image and limits. A change to
 * any (a new task set, a rebuilt file system) leaves the cached row unused and the gold is checked again.
 */
export async function goldFingerprint(task: BashTask, ctx: GoldRunContext): Promise<string> {
  const parts = [
    goldCommand(task),
    task.fs,
    ctx.fs.name,
    await buildStamp(ctx.fs),
    path.basename(ctx.hostDir),
    ctx.backend,
    ctx.image,
    ctx.limits.timeoutMs,
    ctx.limits.outputBytes,
  ];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

/** Whether a score needs gold run in a seat, or reads gold's cached result. */
export type GoldPlan = { kind: "cached"; gold: GoldResult } | { kind: "seat"; reason: string };

/** The verdict stored per task and variant (GoldCache.details). */
interface Verdict {
  fingerprint: string;
  deterministic: boolean;
  reason?: string;
  snapshot?: FsSnapshot;
}

const STORE_ENV = "bash";

/** The variant a row is stored under: the backend and image gold ran on. */
function variantOf(ctx: GoldRunContext): string {
  return `score:${ctx.backend}:${ctx.image}`;
}

/** Verdicts known to this process, by task, variant and fingerprint (the store keeps them across processes). */
const known = new Map<string, Promise<GoldPlan | null>>();

function storeKey(task: BashTask, ctx: GoldRunContext) {
  return { environment: STORE_ENV, dataset: task.dataset, taskId: task.id, variant: variantOf(ctx) };
}

/** A stored verdict for this fingerprint, or null (none, another fingerprint, or the store unreachable). */
async function readVerdict(task: BashTask, ctx: GoldRunContext, fingerprint: string): Promise<GoldPlan | null> {
  const row = await getGoldCacheByTask(storeKey(task, ctx)).catch(() => null);
  if (!row?.details) return null;
  let v: Verdict;
  try {
    v = JSON.parse(row.details) as Verdict;
  } catch {
    return null;
  }
  if (v.fingerprint !== fingerprint) return null;
  if (!v.deterministic || !v.snapshot) return { kind: "seat", reason: v.reason ?? "its two runs differed" };
  return { kind: "cached", gold: { output: row.observation, snapshot: v.snapshot } };
}

/**
 * Decides how a score of `task` gets gold (the screen, the documented exceptions, then the cache).
 * When nothing is known yet, `determine` is called to check the gold in the background (see
 * determineGold), and this episode runs gold in a seat.
 */
export async function planGold(task: BashTask, ctx: GoldRunContext, determine: (fingerprint: string) => void): Promise<GoldPlan> {
  const reason = volatileReason(goldCommand(task)) ?? (await documentedReason(task, ctx.fs));
  if (reason) return { kind: "seat", reason };
  const fingerprint = await goldFingerprint(task, ctx);
  const key = `${task.dataset}\0${task.id}\0${variantOf(ctx)}\0${fingerprint}`;
  let p = known.get(key);
  if (!p) {
    p = readVerdict(task, ctx, fingerprint);
    known.set(key, p);
  }
  const plan = await p;
  if (plan) return plan;
  const pending: GoldPlan = { kind: "seat", reason: "its check has not finished" };
  // The first episode to find nothing starts the check (once per process and fingerprint: a failed
  // check leaves gold to the seat); the others run gold in a seat meanwhile.
  if (known.get(key) === p) {
    known.set(key, Promise.resolve(pending));
    determine(fingerprint);
  }
  return pending;
}

/** The second run starts at least this long after the first did, so a clock read to the second moves between them. */
const RUN_APART_MS = 1100;

function sameResult(a: GoldResult, b: GoldResult): boolean {
  return a.output === b.output && a.snapshot.status === b.snapshot.status && JSON.stringify(a.snapshot.hashes) === JSON.stringify(b.snapshot.hashes);
}

/**
 * Checks whether a gold is deterministic: two runs, each in a fresh seat (`open` gives its sandbox)
 * as a score runs it, at least RUN_APART_MS apart; the same output and the same file changes, and
 * neither cut by a limit. Stores the verdict (and for a deterministic gold its result) under the
 * fingerprint, and makes later plans in this process read it. Returns the plan it stored.
 */
export async function determineGold(task: BashTask, ctx: GoldRunContext, fingerprint: string, open: () => Promise<Sandbox>): Promise<GoldPlan> {
  const runOnce = async () => {
    const seat = await openGoldSeat(open);
    try {
      return await runGold(task, seat);
    } finally {
      await seat.sandbox.close().catch(() => undefined);
    }
  };
  const t0 = Date.now();
  const a = await runOnce();
  await new Promise((r) => setTimeout(r, Math.max(0, RUN_APART_MS - (Date.now() - t0))));
  const b = await runOnce();
  const deterministic = !a.cut && !b.cut && sameResult(a, b);
  const reason = a.cut || b.cut ? "a run hit the time or output limit" : deterministic ? undefined : "its two runs differed";
  const verdict: Verdict = deterministic ? { fingerprint, deterministic, snapshot: a.snapshot } : { fingerprint, deterministic, reason };
  const plan: GoldPlan = deterministic ? { kind: "cached", gold: { output: a.output, snapshot: a.snapshot } } : { kind: "seat", reason: reason! };
  known.set(`${task.dataset}\0${task.id}\0${variantOf(ctx)}\0${fingerprint}`, Promise.resolve(plan));
  // The store is where other processes find it; without one the verdict lives in this process only.
  await putGoldCache({ ...storeKey(task, ctx), observation: deterministic ? a.output : "", details: verdict }).catch(() => undefined);
  return plan;
}

/** Forgets the verdicts this process holds (tests; the store's rows stay). */
export function forgetGoldVerdicts(): void {
  known.clear();
}
