/**
 * Sandbox containment: the attack corpus (hardening/attacks.ts) run against every sandbox
 * backend (local, and docker when it answers — required with IC_REQUIRE_DOCKER=1) in every
 * environment it applies to, and SQL against its engine. Each attack runs in its own episode;
 * the next episode runs a check action; the host is checked after every attack.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTask } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { StudioError } from "@/lib/errors";
import { createEnvironment } from "@/lib/env";
import { backendsUnderTest } from "@/lib/testing/backends";
import type { StepResult } from "@/lib/env/types";
import { shutdownSandboxBackends } from "@/lib/sandbox";
import type { Limits } from "@/lib/sandbox/limits";
import { type Attack, type AttackContext, type AttackEnv, type AttackOutcome, attacksFor } from "./attacks";
import { recordFigure } from "./figures";

const REPO = path.resolve(__dirname, "..");
const run = randomBytes(4).toString("hex");
// The "server's" secret: set before any sandbox starts, so a leaking backend would pass it on.
const SECRET = `sk-hardening-${run}-fake-openai-key`;
process.env.OPENAI_API_KEY = SECRET;

const LIMITS: Partial<Limits> = {
  timeoutMs: 5000,
  outputBytes: 16 * 1024,
  processes: 64,
  memoryBytes: 256 * 1024 * 1024,
  fileBytes: 32 * 1024 * 1024,
  diskBytes: 64 * 1024 * 1024,
};

const backends = await backendsUnderTest();
let server: http.Server;
let hits = 0;
let ctx: AttackContext;
const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");
let canaryHash = "";
let dbHash = "";

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits++;
    res.end(`http-token-${run}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  fs.mkdirSync(path.join(REPO, "var"), { recursive: true });
  // Outside /tmp: every sandbox has a private /tmp, where the same path is harmlessly writable.
  const canaryDir = fs.mkdtempSync(path.join(REPO, "var", "hardening-canary-dir-"));
  const canaryFile = path.join(REPO, "var", `hardening-canary-${run}.txt`);
  fs.writeFileSync(canaryFile, `canary-token-${run}\n`);
  fs.mkdirSync(path.join(REPO, "var"), { recursive: true });
  const projectDb = path.join(REPO, "var", `hardening-canary-${run}.db`);
  const db = new Database(projectDb);
  db.exec("CREATE TABLE secret(v TEXT)");
  db.prepare("INSERT INTO secret VALUES (?)").run(`db-token-${run}`);
  db.close();
  const addrs = Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && a.family === "IPv4")
    .map((a) => a!.address);
  ctx = {
    port: (server.address() as AddressInfo).port,
    httpToken: `http-token-${run}`,
    hostAddrs: ["127.0.0.1", ...addrs.filter((a) => a !== "127.0.0.1")],
    secret: SECRET,
    canaryFile,
    canaryToken: `canary-token-${run}`,
    canaryDir,
    projectDb,
    dbToken: `db-token-${run}`,
    repoRoot: REPO,
    hostPid: process.pid,
    marker: `ic-pwned-${run}`,
    sleepMark: 31000 + (parseInt(run.slice(0, 4), 16) % 999),
    sqlTable: "stations",
    sqlRows: 0,
    timeoutMs: LIMITS.timeoutMs!,
    outputBytes: LIMITS.outputBytes!,
    diskBytes: LIMITS.diskBytes!,
  };
  canaryHash = sha(canaryFile);
  dbHash = sha(projectDb);
});

afterAll(async () => {
  server?.close();
  if (!ctx) return;
  fs.rmSync(ctx.canaryDir, { recursive: true, force: true });
  fs.rmSync(ctx.canaryFile, { force: true });
  fs.rmSync(ctx.projectDb, { force: true });
  await shutdownSandboxBackends().catch(() => {});
});

/** Host processes whose command line names the run's sleep mark. */
function leftProcesses(ctx: AttackContext): string[] {
  try {
    return execFileSync("pgrep", ["-af", `sleep ${ctx.sleepMark}`], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** Everything the host must still look like; returns what changed. */
async function hostChanges(ctx: AttackContext): Promise<string[]> {
  const out: string[] = [];
  if (sha(ctx.canaryFile) !== canaryHash) out.push("canary file changed");
  if (sha(ctx.projectDb) !== dbHash) out.push("project database changed");
  const inDir = fs.readdirSync(ctx.canaryDir);
  if (inDir.length) out.push(`files appeared in the canary dir: ${inDir.join(", ")}`);
  for (const dir of new Set(["/tmp", os.tmpdir(), path.join(REPO, "var"), "/", "/etc", "/usr/bin"])) {
    const found = fs.readdirSync(dir).filter((n) => n.includes(ctx.marker));
    if (found.length) out.push(`host ${dir} has ${found.join(", ")}`);
  }
  if (hits) out.push(`${hits} request(s) reached the host's HTTP server`);
  // Processes left behind must be gone once their episode is closed (docker removes in the background).
  for (let i = 0; i < 40 && leftProcesses(ctx).length; i++) await new Promise((r) => setTimeout(r, 250));
  const left = leftProcesses(ctx);
  if (left.length) out.push(`processes left on the host: ${left.join(" | ")}`);
  return out;
}

/** The common checks every observation passes. */
function observationProblems(o: AttackOutcome, ctx: AttackContext): string[] {
  const out: string[] = [];
  const text = o.result?.observation ?? "";
  for (const [name, token] of [
    ["the server's API key", ctx.secret],
    ["the canary file's content", ctx.canaryToken],
    ["the project database's content", ctx.dbToken],
    ["the host HTTP server's answer", ctx.httpToken],
  ] as const) {
    if (text.includes(token) || (o.error?.message ?? "").includes(token)) out.push(`observation holds ${name}`);
  }
  if (Buffer.byteLength(text) > ctx.outputBytes * 3 + 4096) out.push(`observation of ${Buffer.byteLength(text)} bytes past the ${ctx.outputBytes} cap`);
  if (text.includes("\uD800") || Buffer.from(text, "utf8").toString("utf8") !== text) out.push("observation is not valid text");
  return out;
}

const DEFAULT_NEXT: Record<AttackEnv, { action: string; want: RegExp }> = {
  bash: { action: "echo ok", want: /^ok\s*$/ },
  ctf: { action: "echo ok", want: /^ok\s*$/ },
  python: { action: "print('ok')", want: /^ok\s*$/ },
  sql: { action: "SELECT 1 + 1", want: /2/ },
};

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms (hung)`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

async function timed(p: Promise<StepResult>): Promise<AttackOutcome> {
  const t0 = Date.now();
  try {
    return { result: await p, ms: Date.now() - t0 };
  } catch (error) {
    return { error: error as Error, ms: Date.now() - t0 };
  }
}

function taskFor(env: AttackEnv): Task {
  switch (env) {
    case "bash":
      return getTask("demo-bash", "count-python-files");
    case "python":
      return getTask("demo-python", "reverse-words");
    case "ctf":
      return getTask("demo-ctf", "base64-note");
    case "sql":
      return getTask("demo-sql", "bike-01");
  }
}

/** Runs every attack for `envName` on `backend`; returns the failures (empty = all contained). */
async function runCorpus(
  envName: AttackEnv,
  backend: "local" | "docker" | "sql-engine",
  c: AttackContext,
): Promise<{ tried: number; failures: string[]; retries: string[]; engine?: string }> {
  const env = await createEnvironment(envName, envName === "sql" ? { limits: LIMITS } : { backend: backend as "local" | "docker", limits: LIMITS });
  const task = taskFor(envName);
  const pick = process.env.IC_HARDENING_ATTACKS?.split(","); // e.g. "fill-disk" while working on one attack
  const attacks = attacksFor(envName).filter((a) => !pick || pick.includes(a.id));
  const failures: string[] = [];
  const retries: string[] = [];
  const fail = (a: Attack | Attack[], why: string) => {
    for (const x of Array.isArray(a) ? a : [a]) failures.push(`${x.id}: ${why}`);
  };
  const deadline = c.timeoutMs + 45_000;
  let engine: string | undefined;
  // Shared attacks run one after another in one episode; the others in an episode each.
  const episodes: Attack[][] = [attacks.filter((a) => !a.ownEpisode), ...attacks.filter((a) => a.ownEpisode).map((a) => [a])];
  try {
    if (envName === "sql") {
      await env.reset(task);
      const r = await env.step(`SELECT COUNT(*) FROM ${c.sqlTable}`);
      c.sqlRows = Number(r.observation.match(/\d+/)?.[0]);
      // Which engine answers (the row is named after it): VERSION() exists on MariaDB and MySQL only.
      const v = await env.step("SELECT VERSION()");
      engine = /mariadb/i.test(v.observation) ? "mariadb" : v.ok && /\d+\.\d+\.\d+/.test(v.observation) ? "mysql" : "sqlite";
      expect(c.sqlRows).toBeGreaterThan(0);
    }
    let prev: Attack[] | null = null;
    for (const episode of [...episodes, null]) {
      // A fresh episode: it closes the previous one (whose sandbox must take everything with it).
      try {
        await withDeadline(env.reset(task), deadline, "reset");
      } catch (err) {
        if (prev) fail(prev, `the next episode could not start: ${(err as Error).message}`);
        await withDeadline(env.reset(task), deadline, "second reset");
      }
      if (prev) {
        // The next episode is unaffected: its check action gives the expected output.
        const single = prev.length === 1 ? prev[0] : null;
        const custom = single?.next?.actions[envName];
        const checkAction = custom ? custom(c) : DEFAULT_NEXT[envName].action;
        let o = await timed(withDeadline(env.step(checkAction), deadline, "next-episode check"));
        if (o.result?.timedOut) {
          // On a loaded machine a fresh sandbox's first action can miss the limit: one retry, counted.
          retries.push(prev.map((a) => a.id).join(","));
          o = await timed(withDeadline(env.step(checkAction), deadline, "next-episode check (retry)"));
        }
        const text = o.result?.observation ?? "";
        const why = o.error
          ? `next episode broken: ${o.error.message}`
          : custom
            ? single!.next!.expect(text, c)
            : DEFAULT_NEXT[envName].want.test(text)
              ? null
              : `next episode check gave ${JSON.stringify(text.slice(0, 120))}`;
        if (why) fail(prev, why);
        for (const change of await hostChanges(c)) fail(prev, change);
      }
      if (!episode) break;
      for (const attack of episode) {
        const o = await timed(withDeadline(env.step(attack.actions[envName]!(c)), deadline, "attack step"));
        if (process.env.IC_HARDENING_VERBOSE)
          process.stderr.write(
            `[${new Date().toISOString()}] ${backend}/${envName} ${attack.id}: ${o.ms} ms ${o.error ? `threw ${o.error.message}` : JSON.stringify((o.result?.observation ?? "").slice(0, 80))}\n`,
          );
        if (o.error) {
          const clear = o.error instanceof StudioError && o.error.message.length > 0;
          if (!attack.mayBreakSandbox || !clear) fail(attack, `step threw ${o.error.name}: ${o.error.message}`);
        }
        for (const p of observationProblems(o, c)) fail(attack, p);
        const why = attack.expect?.(o, c);
        if (why) fail(attack, why);
        const probe = attack.probe?.actions[envName];
        if (probe) {
          const p = await timed(withDeadline(env.step(probe(c)), deadline, "probe"));
          const pwhy = p.error ? `probe threw ${p.error.message}` : attack.probe!.expect(p.result!.observation, c);
          if (pwhy) fail(attack, pwhy);
        }
        // Nothing may have leaked even while the episode is still open.
        for (const change of (await hostChanges(c)).filter((x) => !x.startsWith("processes left"))) fail(attack, change);
      }
      prev = episode;
    }
  } finally {
    await env.close().catch(() => {});
  }
  for (const change of await hostChanges(c)) failures.push(`after closing: ${change}`);
  return { tried: attacks.length, failures, retries, engine };
}

const combos: [AttackEnv, "local" | "docker" | "sql-engine"][] = [
  ...backends.flatMap((b) => (["bash", "python", "ctf"] as const).map((e) => [e, b] as [AttackEnv, "local" | "docker"])),
  ["sql", "sql-engine"], // the engine IC_SQL_URL names (MariaDB/MySQL), else embedded SQLite; the figure row names the one found
];

/**
 * Attacks a backend is known not to contain yet, by row. Each is reported in the figures as not
 * contained, and must still fail here: once it is contained the test says so, and the entry goes.
 * None now (docker/bash fill-disk was closed by running the whole-root file system on a
 * size-capped tmpfs that the supervisor switches into).
 */
const KNOWN_GAPS: Record<string, string[]> = {};

describe("sandbox containment", () => {
  const only = process.env.IC_HARDENING_ONLY; // e.g. "local/bash" while working on one row
  // The rows run side by side (each in its own sandboxes, with its own marker and sleep mark).
  it.concurrent.each(combos.filter(([e, b]) => !only || only === `${b}/${e}`).map(([e, b], i) => [e, b, i] as const))(
    "%s attacks on %s are contained",
    async (envName, backend, i) => {
      const c: AttackContext = { ...ctx, marker: `${ctx.marker}-${i}`, sleepMark: ctx.sleepMark + i * 1000 };
      const { tried, failures, retries, engine } = await runCorpus(envName, backend, c);
      const failedIds = new Set(failures.map((f) => f.split(":")[0]));
      const gaps = process.env.IC_HARDENING_ATTACKS ? [] : (KNOWN_GAPS[`${backend}/${envName}`] ?? []);
      recordFigure({
        section: "containment",
        row: `${engine ?? backend}/${envName}`,
        tried,
        passed: tried - [...failedIds].filter((id) => id !== "after closing").length,
        unit: "contained",
        failures,
        extra: { "check retries": retries.length, ...(gaps.length ? { "known gaps": gaps.join(",") } : {}) },
      });
      expect(failures.filter((f) => !gaps.includes(f.split(":")[0]))).toEqual([]);
      for (const gap of gaps) expect(failedIds.has(gap), `${gap} is contained now on ${backend}/${envName}: remove it from KNOWN_GAPS`).toBe(true);
    },
    900_000,
  );
});
