import "server-only";
import { getImportedFileByHash, insertEpisodesBulk } from "@/lib/db/bulk-import";
import { ecosystemFormatOfText, importAtifText, importInspectText } from "./ecosystem-import";
import { countFlags, logHashes, prepareLogText, type LogAttribution, type LogFormat, type PreparedLog, type RecordProblem } from "./parse-log";
import { linkTasks } from "./task-links";

/** Flags that override what file names say. */
export interface ImportOptions extends LogAttribution {
  /** Called after each file. */
  onFile?: (report: FileReport, done: number, total: number) => void;
  /** Called as a large file (an Inspect .eval) is read: bytes done of its total. */
  onProgress?: (file: string, done: number, total: number) => void;
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
  totals: {
    files: number;
    failedFiles: number;
    episodes: number;
    added: number;
    skipped: number;
    rejected: number;
    flagged: number;
    flags: Record<string, number>;
  };
}

/** The report of a file stored before (same content, same attribution): nothing new to add. */
async function seenReport(file: string, contentHash: string): Promise<FileReport | null> {
  const seen = await getImportedFileByHash({ contentHash });
  if (seen?.rejected !== 0) return null;
  return { file, format: "unknown", episodes: seen.episodes, added: 0, skipped: seen.episodes, rejected: [], flagged: 0, flags: {} };
}

/** Stores one prepared log in one transaction (all its episodes or none), unless it was stored before. */
export async function storePrepared(p: PreparedLog, known?: FileReport | null): Promise<FileReport> {
  if (p.error)
    return {
      file: p.file,
      format: p.format,
      episodes: p.episodes.length,
      added: 0,
      skipped: 0,
      rejected: p.rejected,
      flagged: p.flagged,
      flags: p.flags,
      error: p.error,
    };
  const seen = known === undefined ? await seenReport(p.file, p.contentHash) : known;
  if (seen) return seen;
  // Each episode on its own task, checked against the task set (which the reading thread does not load).
  linkTasks(p.format, p.episodes);
  const flagLists = p.episodes.map((e) => ({ flags: (e.flags ?? "").split(" ").filter(Boolean) }));
  const report: FileReport = {
    file: p.file,
    format: p.format,
    episodes: p.episodes.length,
    added: 0,
    skipped: 0,
    rejected: p.rejected,
    flagged: flagLists.filter((e) => e.flags.length).length,
    flags: countFlags(flagLists),
  };
  const res = await insertEpisodesBulk({
    episodes: p.episodes,
    file: { contentHash: p.contentHash, path: p.file, format: p.format, rejected: p.rejected.length },
  });
  return { ...report, added: res.added, skipped: res.skipped };
}

/** Imports one log given as text (a file or an upload). Each file is one transaction. */
export async function importLogText(name: string, text: string, opts: ImportOptions = {}): Promise<FileReport> {
  // Inspect's and ATIF's JSON go to their own reader (lib/trajectories/ecosystem-import.ts).
  const eco = ecosystemFormatOfText(text);
  if (eco === "inspect") return importInspectText(name, text, opts);
  if (eco === "atif") return importAtifText(name, text, opts);
  const hashes = logHashes(name, text, opts);
  // A file stored before is known by its hash: no need to parse it.
  const seen = await seenReport(name, hashes.contentHash);
  if (seen) return seen;
  return storePrepared(prepareLogText(name, text, opts, hashes), null);
}

/** The report of a file that was not read (too large), with the reason. */
export function unreadFileReport(file: string, error: string): FileReport {
  return { file, format: "unknown", episodes: 0, added: 0, skipped: 0, rejected: [], flagged: 0, flags: {}, error };
}
