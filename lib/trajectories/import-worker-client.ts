import "server-only";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { StudioError } from "@/lib/errors";
import type { LogAttribution, PreparedLog } from "./parse-log";

/** Set by the CLI's build (scripts/cli-bundle.mjs) to its compiled entry of the worker; undefined elsewhere. */
declare const ICSTUDIO_BUNDLED_WORKER: string | undefined;

/**
 * The worker's entry, a path (not `new URL(...)` in `new Worker`, which bundlers would try to
 * bundle): the compiled one in the CLI's build, else the one that runs the TypeScript through tsx.
 */
const ENTRY =
  typeof ICSTUDIO_BUNDLED_WORKER === "string" ? ICSTUDIO_BUNDLED_WORKER : path.join(path.dirname(fileURLToPath(import.meta.url)), "import-worker.mjs");

/**
 * A thread that reads log files into rows to store (lib/trajectories/import-worker.ts), so that
 * the importer's own thread only writes. Files are read in the order asked.
 */
export class ParseWorker {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (p: PreparedLog) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private failure: Error | null = null;

  constructor(attribution: LogAttribution) {
    this.worker = new Worker(ENTRY, { workerData: attribution });
    this.worker.on("message", (m: { id: number; prepared?: PreparedLog; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.prepared) w?.resolve(m.prepared);
      else w?.reject(new StudioError("internal", `import worker: ${m.error}`));
    });
    const fail = (err: Error) => {
      this.failure = new StudioError("internal", `import worker stopped: ${err.message}`, undefined, { cause: err });
      for (const w of this.waiting.values()) w.reject(this.failure);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => {
      if (this.waiting.size) fail(new Error(`exit code ${code}`));
    });
  }

  /** The file read and converted; rejects when the worker failed (a bug, not bad content: that is in the report). */
  prepare(file: string): Promise<PreparedLog> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const p = new Promise<PreparedLog>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.worker.postMessage({ id, file });
    // Asked ahead of use: a failure is reported where the caller awaits it, never as unhandled.
    p.catch(() => {});
    return p;
  }

  async close(): Promise<void> {
    this.waiting.clear();
    await this.worker.terminate();
  }
}
