/**
 * `npm run bench -- load [--sessions 20] [--actions 50] [--grow 5,10,20,30,40] [--grow-actions 20]
 * [--env bash] [--no-grow]`: concurrent playground sessions against a real server.
 *
 * Starts server.ts as a child process (production build, local sandbox, a temporary store), opens
 * N websocket sessions at once, each opening an episode and running its actions one after
 * another. Reports errors, the action round trip (send → turnEnd, median and p95), episode open
 * time and the server's peak RSS; then grows the number of sessions and names the first level where
 * it degrades (any error, or a p95 round trip more than 3x the smallest level's).
 */
import fs from "node:fs";
import { ensureBuild, spawnStudio, type StudioProcess } from "@/lib/testing/studio-server";
import { connectWs, tempDb } from "@/lib/testing/ws-client";

interface LevelResult {
  sessions: number;
  actions: number;
  errors: number;
  errorSamples: string[];
  openMedianMs: number;
  rttMedianMs: number;
  rttP95Ms: number;
  peakRssMb: number;
  wallS: number;
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs `sessions` websocket sessions of `actions` actions each, all at once. */
async function runLevel(server: StudioProcess, sessions: number, actions: number, env: string): Promise<LevelResult> {
  const rtts: number[] = [];
  const opens: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let peak = rssMb(server.child.pid!);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid!))), 250);
  const taskRef =
    { bash: "demo-bash:count-python-files", python: "demo-python:reverse-words", ctf: "demo-ctf:base64-note", sql: "demo-sql:bike-01" }[env] ?? env;
  const action = (s: number, i: number) =>
    ({ bash: `echo s${s}-a${i}`, ctf: `echo s${s}-a${i}`, python: `print('s${s}-a${i}')`, sql: `SELECT 's${s}-a${i}'` })[env] ?? `echo s${s}-a${i}`;
  const t0 = Date.now();
  const one = async (s: number) => {
    const ws = await connectWs(server.url);
    try {
      const o0 = Date.now();
      ws.send({ type: "open", env: env as "bash", taskRef, turnLimit: Math.min(1000, actions + 5) });
      const opened = await ws.next(["opened", "error"], 180_000);
      if (opened.type === "error") throw new Error(`open: ${opened.message}`);
      opens.push(Date.now() - o0);
      for (let i = 0; i < actions; i++) {
        const a0 = Date.now();
        ws.send({ type: "action", text: action(s, i), source: "console" });
        const end = await ws.next(["turnEnd", "error"], 120_000);
        if (end.type === "error" || !end.observation.includes(`s${s}-a${i}`)) {
          errors++;
          if (errorSamples.length < 5)
            errorSamples.push(end.type === "error" ? `${end.code}: ${end.message}` : `wrong observation ${JSON.stringify(end.observation.slice(0, 60))}`);
          if (end.type === "error" && end.fatal) return;
          continue;
        }
        rtts.push(Date.now() - a0);
      }
      ws.send({ type: "abandon", reason: "load bench" });
    } catch (err) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push((err as Error).message.slice(0, 200));
    } finally {
      ws.close();
    }
  };
  await Promise.all(Array.from({ length: sessions }, (_, s) => one(s)));
  clearInterval(sampler);
  return {
    sessions,
    actions,
    errors,
    errorSamples,
    openMedianMs: quantile(opens, 0.5),
    rttMedianMs: quantile(rtts, 0.5),
    rttP95Ms: quantile(rtts, 0.95),
    peakRssMb: Math.round(peak),
    wallS: Math.round((Date.now() - t0) / 100) / 10,
  };
}

function table(rows: LevelResult[]): string {
  const head = ["sessions", "actions/session", "errors", "open median ms", "rtt median ms", "rtt p95 ms", "server peak RSS MB", "wall s"];
  const cells = rows.map((r) =>
    [r.sessions, r.actions, r.errors, r.openMedianMs, r.rttMedianMs, r.rttP95Ms, r.peakRssMb, r.wallS].map((v) => String(Number.isNaN(v) ? "-" : v)),
  );
  const w = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  return [head, ...cells].map((c) => c.map((x, i) => x.padStart(w[i])).join("  ")).join("\n");
}

function flag(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

export default async function load(args: string[]): Promise<number> {
  const sessions = Number(flag(args, "sessions", "20"));
  const actions = Number(flag(args, "actions", "50"));
  const env = flag(args, "env", "bash");
  const grow = args.includes("--no-grow") ? [] : flag(args, "grow", "5,10,20,30,40").split(",").map(Number);
  const growActions = Number(flag(args, "grow-actions", "20"));
  if (![sessions, actions, growActions, ...grow].every((n) => Number.isInteger(n) && n > 0)) {
    process.stderr.write("load: --sessions, --actions, --grow and --grow-actions take positive integers\n");
    return 2;
  }
  ensureBuild();
  const { dir, db } = tempDb("ic-bench-load-");
  const server = await spawnStudio({ IC_DB: db, IC_SANDBOX: "local", IC_MAX_SANDBOXES: String(Math.max(sessions, ...grow, 1) * 2) });
  try {
    process.stdout.write(
      `load: ${sessions} sessions x ${actions} actions (${env}, local sandbox); server pid ${server.child.pid}, idle RSS ${Math.round(rssMb(server.child.pid!))} MB\n`,
    );
    const main = await runLevel(server, sessions, actions, env);
    process.stdout.write(`${table([main])}\n`);
    for (const s of main.errorSamples) process.stdout.write(`  error: ${s}\n`);
    if (grow.length) {
      process.stdout.write(`\ngrowing sessions (${growActions} actions each):\n`);
      const rows: LevelResult[] = [];
      for (const n of grow) {
        rows.push(await runLevel(server, n, growActions, env));
        process.stdout.write(`${table(rows)}\n\n`);
      }
      const base = rows[0];
      const degraded = rows.find((r) => r.errors > 0 || r.rttP95Ms > 3 * base.rttP95Ms);
      process.stdout.write(
        degraded
          ? `first degrades at ${degraded.sessions} sessions (${degraded.errors > 0 ? `${degraded.errors} errors` : `p95 ${degraded.rttP95Ms} ms vs ${base.rttP95Ms} ms at ${base.sessions}`})\n`
          : `no degradation up to ${rows[rows.length - 1].sessions} sessions (errors 0, p95 within 3x of ${base.rttP95Ms} ms)\n`,
      );
      for (const r of rows) for (const s of r.errorSamples) process.stdout.write(`  ${r.sessions} sessions error: ${s}\n`);
    }
    return main.errors === 0 ? 0 : 1;
  } finally {
    await server.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
