import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnStudio } from "@/lib/testing/studio-server";

// The e2e tests and global setup take these from here; they live in lib/testing/studio-server.ts.
export { ensureBuild, ROOT } from "@/lib/testing/studio-server";

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
