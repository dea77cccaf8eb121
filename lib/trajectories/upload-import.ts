import "server-only";
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { config } from "@/lib/config";
import { lendWriteLock } from "@/lib/db/lock";
import { StudioError, type ErrorCode } from "@/lib/errors";
import { importEcosystemUnit } from "./ecosystem-import";
import { importLogText, type FileReport } from "./import";
import type { LogAttribution } from "./parse-log";

/** One uploaded file, already on disk, for the upload thread to import. */
export interface UploadJob {
  job: number;
  /** The name the file was uploaded under (its format and attribution come from it). */
  name: string;
  path: string;
  attribution: LogAttribution;
}

export type UploadResult =
  | { job: number; report: FileReport }
  | { job: number; error: { code: ErrorCode; message: string; details?: Record<string, unknown> } };

/** How long the thread is kept after its last upload, for the next one. */
const IDLE_MS = 60_000;

interface Holder {
  worker?: Worker;
  waiting: Map<number, { resolve: (r: FileReport) => void; reject: (e: Error) => void }>;
  next: number;
  /** Uploads run one at a time, in order. */
  tail: Promise<unknown>;
  idle?: NodeJS.Timeout;
}
const holder: Holder = ((globalThis as Record<string, unknown>).__icStudioUploadWorker ??= { waiting: new Map(), next: 0, tail: Promise.resolve() }) as Holder;

/** The thread's entry in the source tree; absent in a bundled CLI, where uploads run in-thread. */
function entry(): string | null {
  const file = path.join(config().repoRoot, "lib/trajectories/upload-worker.mjs");
  return fs.existsSync(file) ? file : null;
}

function startWorker(file: string): Worker {
  const worker = new Worker(file);
  lendWriteLock(worker);
  worker.unref();
  worker.on("message", (m: UploadResult | { icWriteLock: unknown }) => {
    if (!("job" in m)) return;
    const w = holder.waiting.get(m.job);
    holder.waiting.delete(m.job);
    if ("report" in m) w?.resolve(m.report);
    else w?.reject(new StudioError(m.error.code, m.error.message, m.error.details));
  });
  const gone = (err: Error) => {
    if (holder.worker === worker) holder.worker = undefined;
    for (const w of holder.waiting.values()) w.reject(new StudioError("internal", `the import thread stopped: ${err.message}`, undefined, { cause: err }));
    holder.waiting.clear();
  };
  worker.on("error", gone);
  worker.on("exit", (code) => gone(new Error(`exit code ${code}`)));
  return worker;
}

function runOnWorker(file: string, job: Omit<UploadJob, "job">): Promise<FileReport> {
  clearTimeout(holder.idle);
  const worker = (holder.worker ??= startWorker(file));
  const id = holder.next++;
  const done = new Promise<FileReport>((resolve, reject) => holder.waiting.set(id, { resolve, reject }));
  worker.postMessage({ ...job, job: id } satisfies UploadJob);
  return done.finally(() => {
    if (holder.waiting.size) return;
    holder.idle = setTimeout(() => {
      if (holder.worker === worker && !holder.waiting.size) {
        holder.worker = undefined;
        void worker.terminate();
      }
    }, IDLE_MS);
    holder.idle.unref();
  });
}

/** Imports a file on disk under the name it was uploaded with, in this thread (the upload thread's work). */
export async function importFileAs(name: string, file: string, attribution: LogAttribution): Promise<FileReport> {
  // An Inspect .eval is a zip, read from disk entry by entry; the rest are text.
  if (/\.eval$/i.test(name)) return { ...(await importEcosystemUnit({ kind: "inspect-eval", path: file }, attribution)), file: name };
  return importLogText(name, await fs.promises.readFile(file, "utf8"), attribution);
}

/**
 * Imports one uploaded file (an InterCode log, JSONL, Inspect .eval/.json or ATIF) that is on disk
 * at `file`, under the name it was uploaded with. The reading, converting and storing run on the
 * upload thread, one file at a time, so the server keeps answering other requests and the
 * websocket meanwhile (issue 23: a 45 MB import held them 1.5-4 s).
 */
export function importUploadedFile(name: string, file: string, attribution: LogAttribution): Promise<FileReport> {
  const workerEntry = entry();
  const run = () => (workerEntry ? runOnWorker(workerEntry, { name, path: file, attribution }) : importFileAs(name, file, attribution));
  const result = holder.tail.then(run, run);
  holder.tail = result.catch(() => undefined);
  return result;
}

/** Whether the upload thread is running now (it ends a minute after its last upload), and its thread id. */
export function uploadThread(): { live: boolean; threadId: number | null } {
  return { live: !!holder.worker, threadId: holder.worker?.threadId ?? null };
}
