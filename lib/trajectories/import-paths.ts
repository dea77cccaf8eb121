import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bulkWriteSession } from "@/lib/db/bulk-import";
import { BadInputError } from "@/lib/errors";
import { importLogText, storePrepared, unreadFileReport, type FileReport, type ImportOptions, type ImportReport } from "./import";
import { ecosystemUnitOf, importEcosystemUnit, type EcosystemUnit } from "./ecosystem-import";
import { ParseWorker } from "./import-worker-client";
import { MAX_IMPORT_FILE_BYTES, tooLarge, type LogAttribution } from "./parse-log";

// Importing files and folders from disk (the CLI's import), apart from ./import.ts so that the
// web upload route, which imports one text at a time, never reaches the reading thread's entry
// (a worker file that bundlers cannot follow).

export interface ImportPathsOptions extends ImportOptions {
  /**
   * Read files in a worker thread while this one writes the last one read: on, or off (everything
   * on this thread). Default: on when the files add up to WORKER_MIN_BYTES or more and the machine
   * has more than one core (severalCores).
   */
  worker?: boolean;
}

/**
 * Below this many bytes of logs in all, importPaths reads them on its own thread: a worker's
 * start-up (the parser's modules, a few tenths of a second of CPU on another core, compiled; about a
 * second through tsx) is worth it only when there is parsing to overlap with writing.
 */
export const WORKER_MIN_BYTES = 8 * 1024 * 1024;

/**
 * Whether the reading thread can run beside the writer: the machine has more than one core. The
 * load average is no guide: compiled, the worker costs about 0.5 s of CPU more than reading on the
 * writer's thread (passing the rows between threads), and on a busy machine two threads get more
 * of the cores than one (the published set on 2 cores at load 9-10, median of 3: 16.6 s wall with
 * the worker, 20.8 s without, 10.4 s of CPU against 9.9 s). The one-minute average also counted the
 * previous import (a benchmark's runs back to back), which kept the worker off when it paid.
 */
export function severalCores(): boolean {
  return os.availableParallelism() > 1;
}

/**
 * Lists the .json, .jsonl and .eval files under the given files and folders, in a stable order; a
 * Harbor trial folder or a folder of trials is listed as itself (one unit: lib/trajectories/ecosystem-import.ts).
 */
export function expandImportPaths(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      throw new BadInputError("no such file or folder", p);
    }
    if (st.isDirectory() && ecosystemUnitOf(p)) out.push(p);
    else if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        const child = path.join(p, name);
        if (fs.statSync(child).isDirectory() || /\.(jsonl?|eval)$/i.test(name)) walk(child);
      }
    } else out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

/** Imports files and folders; a damaged file or record is reported and the rest goes on. */
export async function importPaths(paths: string[], opts: ImportPathsOptions = {}): Promise<ImportReport> {
  const all = expandImportPaths(paths);
  // Other tools' logs go to their own reader (they hold samples, not InterCode records), after InterCode's and the JSONL.
  const units = new Map<string, EcosystemUnit>();
  for (const f of all) {
    const u = ecosystemUnitOf(f);
    if (u) units.set(f, u);
  }
  const files = all.filter((f) => !units.has(f));
  const attribution: LogAttribution = { model: opts.model, policy: opts.policy, turnLimit: opts.turnLimit, dataset: opts.dataset };
  const sizes = files.map((f) => fs.statSync(f).size);
  const bytes = sizes.reduce((n, size) => n + size, 0);
  const worker = (opts.worker ?? (bytes >= WORKER_MIN_BYTES && severalCores())) && files.length > 1 ? new ParseWorker(attribution) : null;
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
            sizes[i] > MAX_IMPORT_FILE_BYTES ? unreadFileReport(file, tooLarge(sizes[i])) : await importLogText(file, fs.readFileSync(file, "utf8"), opts);
        }
        reports.push(report);
        opts.onFile?.(report, i + 1, all.length);
      }
      for (const u of units.values()) {
        const report = await importEcosystemUnit(u, { ...attribution, onProgress: opts.onProgress });
        reports.push(report);
        opts.onFile?.(report, reports.length, all.length);
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
