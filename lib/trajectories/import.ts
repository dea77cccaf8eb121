import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bulkWriteSession, getImportedFileByHash, insertEpisodesBulk } from "@/lib/db/bulk-import";
import { BadInputError } from "@/lib/errors";
import { ParseWorker } from "./import-worker-client";
import { logHashes, MAX_IMPORT_FILE_BYTES, prepareLogText, tooLarge, type LogAttribution, type LogFormat, type PreparedLog, type RecordProblem } from "./parse-log";

/** Flags that override what file names say. */
export interface ImportOptions extends LogAttribution {
  /** Called after each file. */
  onFile?: (report: FileReport, done: number, total: number) => void;
  /**
   * Read files in a worker thread while this one writes the last one read: on, or off (everything
   * on this thread). Default: on when the files add up to WORKER_MIN_BYTES or more and a core is
   * free for it (sparedCore).
   */
  worker?: boolean;
}

export interface FileReport {
  file: string;
  format: LogFormat;
  /** Records that held a usable episode. */
  episodes: number;
  /** Episodes with at least one flag, and episodes per flag (lib/trajectories/flags.ts): what is odd about them as logged. */
  flagged: number;
  flags: Record<string, number>;
  added: number;
  skipped: number;
  rejected: RecordProblem[];
  /** Set when the whole file could not be read (damaged, not a log). */
  error?: string;
}

export interface ImportReport {
  files: FileReport[];
  totals: { files: number; failedFiles: number; episodes: number; added: number; skipped: number; rejected: number; flagged: number; flags: Record<string, number> };
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

/** The report of a file stored before (same content, same attribution): nothing new to add. */
async function seenReport(file: string, contentHash: string): Promise<FileReport | null> {
  const seen = await getImportedFileByHash({ contentHash });
  if (!seen || seen.rejected !== 0) return null;
  return { file, format: "unknown", episodes: seen.episodes, added: 0, skipped: seen.episodes, rejected: [], flagged: 0, flags: {} };
}

/** Stores one prepared log in one transaction (all its episodes or none), unless it was stored before. */
async function storePrepared(p: PreparedLog, known?: FileReport | null): Promise<FileReport> {
  const report: FileReport = { file: p.file, format: p.format, episodes: p.episodes.length, added: 0, skipped: 0, rejected: p.rejected, flagged: p.flagged, flags: p.flags };
  if (p.error) return { ...report, error: p.error };
  const seen = known === undefined ? await seenReport(p.file, p.contentHash) : known;
  if (seen) return seen;
  const res = await insertEpisodesBulk({
    episodes: p.episodes,
    file: { contentHash: p.contentHash, path: p.file, format: p.format, rejected: p.rejected.length },
  });
  return { ...report, added: res.added, skipped: res.skipped };
}

/** Imports one log given as text (a file or an upload). Each file is one transaction. */
export async function importLogText(name: string, text: string, opts: ImportOptions = {}): Promise<FileReport> {
  const hashes = logHashes(name, text, opts);
  // A file stored before is known by its hash: no need to parse it.
  const seen = await seenReport(name, hashes.contentHash);
  if (seen) return seen;
  return storePrepared(prepareLogText(name, text, opts, hashes), null);
}

/** Imports files and folders; a damaged file or record is reported and the rest goes on. */
export async function importPaths(paths: string[], opts: ImportOptions = {}): Promise<ImportReport> {
  const files = expandImportPaths(paths);
  const attribution: LogAttribution = { model: opts.model, policy: opts.policy, turnLimit: opts.turnLimit, dataset: opts.dataset };
  const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
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
          const size = fs.statSync(file).size;
          report =
            size > MAX_IMPORT_FILE_BYTES
              ? unreadFileReport(file, tooLarge(size))
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

/** The report of a file that was not read (too large), with the reason. */
export function unreadFileReport(file: string, error: string): FileReport {
  return { file, format: "unknown", episodes: 0, added: 0, skipped: 0, rejected: [], flagged: 0, flags: {}, error };
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
