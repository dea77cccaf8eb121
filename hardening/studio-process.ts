import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { ensureBuild, freePort } from "@/e2e/server";
import { type ClientMessageInput, parseServerMessage, type ServerMessage } from "@/lib/ws/protocol";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Makes sure the app is built (server.ts runs it in production mode). An existing build is used
 * as it is unless IC_HARDENING_BUILD=1 (which rebuilds when sources are newer).
 */
export function ensureApp(): void {
  if (process.env.IC_HARDENING_BUILD !== "1" && fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  ensureBuild();
}

/**
 * Whether the server tests can run: an existing production build, or IC_HARDENING_BUILD=1 (build
 * first). Without either they are skipped and the summary table says so.
 */
export function appAvailable(): boolean {
  return process.env.IC_HARDENING_BUILD === "1" || fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"));
}

/** A Studio server (server.ts) run as a child process, which a test may kill outright. */
export interface StudioProcess {
  url: string;
  port: number;
  child: ChildProcess;
  logs(): string;
  /** Resolves with the exit code (or signal name) once the process ends. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Spawns server.ts (production mode, the app must be built) with `env` on top of a test
 * environment (loopback, a fresh port, local sandbox). Resolves once it prints "ready on", or
 * with the exit code when `expectExit` and it ends first.
 */
export async function spawnStudio(env: Record<string, string>, opts: { expectExit?: boolean; port?: number } = {}): Promise<StudioProcess> {
  const port = opts.port ?? (await freePort());
  let out = "";
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "server.ts"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", IC_HOST: "127.0.0.1", IC_PORT: String(port), IC_SANDBOX: "local", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  const proc: StudioProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    logs: () => out,
    exited,
    kill: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 120 s:\n${out}`)), 120_000);
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

/** A temporary directory with a database path in it. */
export function tempDb(prefix: string): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, db: path.join(dir, "studio.db") };
}

/** A websocket client speaking lib/ws/protocol, with a queue to wait on. */
export interface WsClient {
  send(msg: ClientMessageInput | string): void;
  /** The next server message matching `pred` (earlier non-matching ones are kept in `seen`). */
  next<T extends ServerMessage["type"]>(type: T | T[], timeoutMs?: number): Promise<Extract<ServerMessage, { type: T }>>;
  seen: ServerMessage[];
  raw: string[];
  closed: Promise<{ code: number }>;
  close(): void;
}

/** Opens `/ws` on `url` (http://...), with headers (e.g. a token) when given. */
export async function connectWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers });
  const seen: ServerMessage[] = [];
  const raw: string[] = [];
  const waiters: { types: string[]; resolve: (m: ServerMessage) => void }[] = [];
  let cursor = 0;
  ws.on("message", (data) => {
    const text = data.toString();
    raw.push(text);
    const p = parseServerMessage(text);
    if (!p.ok) return;
    seen.push(p.message);
    pump();
  });
  const closed = new Promise<{ code: number }>((resolve) => ws.once("close", (code) => resolve({ code })));
  function pump() {
    while (waiters.length && cursor < seen.length) {
      const m = seen[cursor++];
      const i = waiters.findIndex((w) => w.types.includes(m.type));
      if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
    }
  }
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`websocket refused: HTTP ${res.statusCode}`)));
  });
  return {
    seen,
    raw,
    closed,
    send: (msg) => ws.send(typeof msg === "string" ? msg : JSON.stringify(msg)),
    next: (type, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const types = Array.isArray(type) ? type : [type];
        const timer = setTimeout(() => reject(new Error(`no ${types.join("/")} message in ${timeoutMs} ms; seen: ${raw.slice(-5).join(" ")}`)), timeoutMs);
        waiters.push({
          types,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m as never);
          },
        });
        pump();
        void closed.then(() => reject(new Error(`websocket closed while waiting for ${types.join("/")}`)));
      }),
    close: () => ws.close(),
  };
}
