import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** The repository root. */
export const ROOT = path.resolve(__dirname, "..");

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

export interface RunningServer {
  url: string;
  port: number;
  dbPath: string;
  dataDir: string;
  logs: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the real server (server.ts, production mode) on a free port with its own temporary
 * database and the local sandbox; resolves once it listens.
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-e2e-"));
  const dbPath = path.join(dataDir, "studio.db");
  let out = "";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      IC_HOST: "127.0.0.1",
      IC_PORT: String(port),
      IC_DB: dbPath,
      IC_SANDBOX: "local",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 90 s:\n${out}`)), 90_000);
    const check = () => {
      if (out.includes("ready on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it was ready:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dbPath,
    dataDir,
    logs: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => {
          const t = setTimeout(() => {
            child.kill("SIGKILL");
            r(null);
          }, 10_000);
          child.once("exit", () => {
            clearTimeout(t);
            r(null);
          });
        });
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
