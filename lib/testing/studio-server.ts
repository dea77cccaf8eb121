/**
 * Test helper (e2e/ and hardening/, bench load): runs the real Studio server (server.ts, production
 * mode) as a child process on a free loopback port, waits until it is ready, and stops or kills it.
 * The repository root comes from import.meta.url, so this works under vitest and plain tsx alike.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

/** Builds the app unless the build is current (same rule as `npm start`). */
export function ensureBuild(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/start.mjs"), "--build-only"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`the build failed (exit ${r.status})`);
}

/** A Studio server (server.ts) run as a child process, which a test may stop or kill outright. */
export interface StudioProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything it printed (stdout and stderr) so far. */
  logs(): string;
  /** Resolves with the exit code (or signal name) once the process ends. */
  exited: Promise<number | string>;
  /** Sends `signal` (SIGTERM by default) unless it has ended; resolves when it has. */
  kill(signal?: NodeJS.Signals): Promise<number | string>;
  /** SIGTERM, then SIGKILL if it is still running after `graceMs` (10 s); resolves when it has ended. */
  stop(graceMs?: number): Promise<number | string>;
}

/** Options of `spawnStudio`. */
export interface SpawnStudioOptions {
  /** The port to listen on (default: a free one). */
  port?: number;
  /** Resolve (instead of reject) when the process ends before it is ready: the test expects it to refuse to start. */
  expectExit?: boolean;
  /** How long to wait for "ready on" (default 120 s). */
  readyTimeoutMs?: number;
}

/**
 * Spawns server.ts (production mode; the app must be built) with `env` on top of a test
 * environment (loopback, the port, local sandbox). Resolves once it prints "ready on"; rejects
 * with its output when it does not within the timeout, or when it ends first (unless `expectExit`).
 */
export async function spawnStudio(env: Record<string, string>, opts: SpawnStudioOptions = {}): Promise<StudioProcess> {
  const port = opts.port ?? (await freePort());
  const readyTimeoutMs = opts.readyTimeoutMs ?? 120_000;
  let out = "";
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "server.ts"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", IC_HOST: "127.0.0.1", IC_PORT: String(port), IC_SANDBOX: "local", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (running()) child.kill(signal);
    return exited;
  };
  const proc: StudioProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    logs: () => out,
    exited,
    kill,
    stop: async (graceMs = 10_000) => {
      const timer = setTimeout(() => void kill("SIGKILL"), graceMs);
      try {
        return await kill("SIGTERM");
      } finally {
        clearTimeout(timer);
      }
    },
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in ${readyTimeoutMs / 1000} s:\n${out}`)), readyTimeoutMs);
    const check = () => {
      if (out.includes("ready on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      if (opts.expectExit) resolve();
      else reject(new Error(`the server exited (${code}) before it was ready:\n${out}`));
    });
  });
  return proc;
}

export interface RunningServer {
  url: string;
  port: number;
  dbPath: string;
  dataDir: string;
  logs: () => string;
  /** Stops the server (SIGTERM, SIGKILL after 10 s) and removes its temporary directory. */
  stop(): Promise<void>;
}

/**
 * Starts the real server (server.ts, production mode) on a free port with its own temporary
 * database and the local sandbox; resolves once it listens.
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-e2e-"));
  const dbPath = path.join(dataDir, "studio.db");
  const proc = await spawnStudio({ IC_DB: dbPath, ...extraEnv }, { readyTimeoutMs: 90_000 });
  return {
    url: proc.url,
    port: proc.port,
    dbPath,
    dataDir,
    logs: proc.logs,
    stop: async () => {
      await proc.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
