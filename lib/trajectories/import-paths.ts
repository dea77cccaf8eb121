import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bulkWriteSession } from "@/lib/db/bulk-import";
import { BadInputError } from "@/lib/errors";
import { importLogText, storePrepared, unreadFileReport, type FileReport, type ImportOptions, type ImportReport } from "./import";
import { ParseWorker } from "./import-worker-client";
import { MAX_IMPORT_FILE_BYTES, tooLarge, type LogAttribution } from "./parse-log";

// Importing files and folders from disk (the CLI's import), apart from ./import.ts so that the
// web upload route, which imports one text at a time, never reaches the reading thread's entry
// (a worker file that bundlers cannot follow).

export interface ImportPathsOptions extends ImportOptions {
  /**
   * Read files in a worker thread while this one writes the last one read: on, or off (everything
   * on this thread). Default: on when the files add up to WORKER_MIN_BYTES or more and a core is
   * free for it (sparedCore).
   */
  worker?: boolean;
}

/**
 * Below this many bytes of logs in all, importPaths reads them on its own thread: a worker's
 * start-up (TypeScript and the parser's modules, about a second of CPU on another core) is worth
 * it only when there is parsing to overlap with writing.
 */
export const WORKER_MIN_BYTES = 8 * 1024 * 1024;

/**
 * Whether the machine has a core to spare for the reading thread: its one-minute load average is
 * below its cores less one. The worker costs about 2 s of CPU more than reading on the writer's
 * thread (its start-up, and passing the rows between threads); with a core free that is paid
 * beside the writer and the import is shorter, on a saturated machine it only adds to the wait
 * (measured on the published set: on 2 cores at load 12 to 17, 12.1-14.5 s of CPU against 10.5-12.2 s).
 */
export function sparedCore(): boolean {
  return os.loadavg()[0] < os.availableParallelism() - 1;
}

/** Lists the .json and .jsonl files under the given files and folders, in a stable order. */
export function expandImportPaths(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      throw new BadInputError("no such file or folder", p);
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        const child = path.join(p, name);
        if (fs.statSync(child).isDirectory() || /\.jsonl?$/i.test(name)) walk(child);
      }
    } else out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

/** Imports files and folders; a damaged file or record is reported and the rest goes on. */
export async function importPaths(paths: string[], opts: ImportPathsOptions = {}): Promise<ImportReport> {
  const files = expandImportPaths(paths);
  const attribution: LogAttribution = { model: opts.model, policy: opts.policy, turnLimit: opts.turnLimit, dataset: opts.dataset };
  const sizes = files.map((f) => fs.statSync(f).size);
  const bytes = sizes.reduce((n, size) => n + size, 0);
  const worker = (opts.worker ?? (bytes >= WORKER_MIN_BYTES && sparedCore())) && files.length > 1 ? new ParseWorker(attribution) : null;
  const reports: FileReport[] = [];
  try {
    // Two files ahead at most: the next one is read while this one is written, without holding a
    // whole large set in memory.
    const ahead = (i: number) => (i < files.length ? worker?.prepare(files[i]) : undefined);
    const pending = [ahead(0), ahead(1)];
    await bulkWriteSession(async () => {
      for (const [i, file] of files.entries()) {
        let report: FileReport;
        if (worker) {
          const prepared = await pending[i]!;
          pending[i] = undefined;
          pending.push(ahead(i + 2));
          report = await storePrepared(prepared);
        } else {
          report =
            sizes[i] > MAX_IMPORT_FILE_BYTES
              ? unreadFileReport(file, tooLarge(sizes[i]))
              : await importLogText(file, fs.readFileSync(file, "utf8"), opts);
        }
        reports.push(report);
        opts.onFile?.(report, i + 1, files.length);
      }
    });
  } finally {
    await worker?.close();
  }
  return { files: reports, totals: summarize(reports) };
}

function summarize(files: FileReport[]): ImportReport["totals"] {
  const flags: Record<string, number> = {};
  for (const f of files) for (const [k, n] of Object.entries(f.flags)) flags[k] = (flags[k] ?? 0) + n;
  return {
    files: files.length,
    failedFiles: files.filter((f) => f.error).length,
    episodes: files.reduce((n, f) => n + f.episodes, 0),
    added: files.reduce((n, f) => n + f.added, 0),
    skipped: files.reduce((n, f) => n + f.skipped, 0),
    rejected: files.reduce((n, f) => n + f.rejected.length, 0),
    flagged: files.reduce((n, f) => n + f.flagged, 0),
    flags,
  };
}
