import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getImportedFileByHash, insertEpisodesBulk, type BulkEpisode } from "@/lib/db/bulk-import";
import { BadInputError } from "@/lib/errors";
import { detectRecordFormat, inferMetaFromFileName, metaFromRunMeta, parseInterCodeRecord, readRunLog, RecordError, type LogMeta, type ParsedEpisode } from "./intercode";
import { jsonlEpisodeSchema } from "./jsonl-schema";

/** Flags that override what file names say. */
export interface ImportOptions {
  model?: string;
  policy?: string;
  turnLimit?: number;
  dataset?: string;
  /** Called after each file. */
  onFile?: (report: FileReport, done: number, total: number) => void;
}

/** A record that was not imported, and why. */
export interface RecordProblem {
  file: string;
  /** The record's key in the file (task index), or `line N` for JSONL. */
  record: string;
  /** 0-based position of the record in the file. */
  index: number;
  reason: string;
}

export interface FileReport {
  file: string;
  /** `run`: InterCode's `{meta, logs}` run file (its Plan & Solve runs), records in the results format. */
  format: "results" | "envlog" | "run" | "jsonl" | "unknown";
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

/** Biggest log file read (bytes). */
export const MAX_IMPORT_FILE_BYTES = 512 * 1024 * 1024;

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

/** Parsed content of one file: the episodes found and the records rejected. */
export interface ParsedFile {
  format: FileReport["format"];
  episodes: ParsedEpisode[];
  rejected: RecordProblem[];
  error?: string;
}

/** Who played and how: the flags, else a run file's meta, else the file's name. */
function metaFor(file: string, opts: ImportOptions, runMeta?: LogMeta): LogMeta {
  const m = { ...inferMetaFromFileName(file), ...runMeta };
  if (opts.model !== undefined) {
    m.model = opts.model;
    m.human = opts.model === "human";
    if (m.human) m.model = null;
  }
  if (opts.policy !== undefined) m.policy = opts.policy;
  if (opts.turnLimit !== undefined) m.turnLimit = opts.turnLimit;
  if (opts.dataset !== undefined) m.dataset = opts.dataset;
  return m;
}

function looksLikeJsonl(name: string, text: string): boolean {
  if (/\.jsonl$/i.test(name)) return true;
  const first = text.slice(0, 4096).split("\n", 1)[0].trim();
  return first.startsWith("{") && first.includes('"icstudio.episode"') && !first.endsWith(",");
}

/**
 * Reads one log's text (an InterCode results file, an InterCode environment log, or the project's
 * JSONL), keeping every good record and naming every bad one. Never throws for bad content.
 * `textHash` is the text's SHA-256 (hex) when the caller has it already.
 */
export function parseLogText(name: string, text: string, opts: ImportOptions = {}, importedAt = new Date(), textHash?: string): ParsedFile {
  const rejected: RecordProblem[] = [];
  const episodes: ParsedEpisode[] = [];
  if (looksLikeJsonl(name, text)) {
    const lines = text.split("\n");
    let pos = 0;
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      const where = { file: name, record: `line ${i + 1}`, index: pos++ };
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        rejected.push({ ...where, reason: `not JSON: ${(err as Error).message}` });
        return;
      }
      const parsed = jsonlEpisodeSchema.safeParse(value);
      if (!parsed.success) {
        const iss = parsed.error.issues[0];
        rejected.push({ ...where, reason: `${iss.path.join(".") || "record"}: ${iss.message}` });
        return;
      }
      const { format: _f, version: _v, ...ep } = parsed.data;
      episodes.push({ ...ep, sourceKey: ep.sourceKey ?? `episode:${ep.id}` });
    });
    return { format: "jsonl", episodes, rejected };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { format: "unknown", episodes, rejected, error: `damaged JSON: ${(err as Error).message}` };
  }
  if (!data || typeof data !== "object") return { format: "unknown", episodes, rejected, error: "not a log: the file holds a JSON " + (data === null ? "null" : typeof data) };
  const run = readRunLog(data);
  const records = run ? run.logs : data;
  const entries: Array<[string, unknown]> = Array.isArray(records) ? records.map((v, i) => [String(i), v]) : Object.entries(records);
  const formats = entries.map(([, v]) => detectRecordFormat(v));
  if (!formats.some(Boolean)) {
    const keys = entries.slice(0, 5).map(([k]) => k).join(", ");
    return {
      format: "unknown",
      episodes,
      rejected,
      error: entries.length
        ? `holds no episodes (no record has turn_history/summary or trajectory; it looks like a run configuration, keys: ${keys}${entries.length > 5 ? ", ..." : ""})`
        : "holds no records",
    };
  }
  const meta = metaFor(name, opts, run ? metaFromRunMeta(run.meta) : undefined);
  const sourceFile = path.basename(name);
  const fileHash = textHash ?? createHash("sha256").update(text).digest("hex");
  entries.forEach(([key, value], i) => {
    try {
      episodes.push(parseInterCodeRecord(key, value, meta, sourceFile, importedAt, fileHash));
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      rejected.push({ file: name, record: key, index: i, reason: err.message });
    }
  });
  const format = run ? "run" : formats.filter(Boolean)[0]!;
  return { format, episodes, rejected };
}

/** Converts a parsed episode into the store's bulk row. */
export function toBulkEpisode(e: ParsedEpisode): BulkEpisode {
  const ms = (s: string | null | undefined) => (s ? Date.parse(s) : null);
  return {
    ...e,
    taskIndex: e.taskIndex ?? null,
    breakdown: e.breakdown === undefined || e.breakdown === null ? null : JSON.stringify(e.breakdown),
    startedAt: Date.parse(e.startedAt),
    firstActionAt: ms(e.firstActionAt),
    endedAt: ms(e.endedAt),
    tags: (e.tags ?? []).join(" "),
    flags: (e.flags ?? []).join(" "),
    turnsTaken: e.turnsTaken ?? null,
    turns: e.turns.map((t) => ({ ...t, ok: t.ok ?? null, startedAt: ms(t.startedAt) })),
  };
}

/** Imports one log given as text (a file or an upload). Each file is one transaction. */
export async function importLogText(name: string, text: string, opts: ImportOptions = {}): Promise<FileReport> {
  // One pass over the text gives both hashes: the text's own (record keys) and with the flags (the file's).
  const textHasher = createHash("sha256").update(text);
  const textHash = textHasher.copy().digest("hex");
  const contentHash = textHasher
    .update("\0" + JSON.stringify([path.basename(name), opts.model ?? null, opts.policy ?? null, opts.turnLimit ?? null, opts.dataset ?? null]))
    .digest("hex");
  const seen = await getImportedFileByHash({ contentHash });
  if (seen && seen.rejected === 0) {
    return { file: name, format: "unknown", episodes: seen.episodes, added: 0, skipped: seen.episodes, rejected: [], flagged: 0, flags: {} };
  }
  const parsed = parseLogText(name, text, opts, new Date(), textHash);
  const report: FileReport = { file: name, format: parsed.format, episodes: parsed.episodes.length, added: 0, skipped: 0, rejected: parsed.rejected,
    flagged: parsed.episodes.filter((e) => e.flags?.length).length,
    flags: countFlags(parsed.episodes),
  };
  if (parsed.error) return { ...report, error: parsed.error };
  const res = await insertEpisodesBulk({
    episodes: parsed.episodes.map(toBulkEpisode),
    file: { contentHash, path: name, format: parsed.format, rejected: parsed.rejected.length },
  });
  return { ...report, added: res.added, skipped: res.skipped };
}

/** Imports files and folders; a damaged file or record is reported and the rest goes on. */
export async function importPaths(paths: string[], opts: ImportOptions = {}): Promise<ImportReport> {
  const files = expandImportPaths(paths);
  const reports: FileReport[] = [];
  for (const [i, file] of files.entries()) {
    let report: FileReport;
    const size = fs.statSync(file).size;
    if (size > MAX_IMPORT_FILE_BYTES) {
      report = unreadFileReport(file, `too large (${size} bytes; the limit is ${MAX_IMPORT_FILE_BYTES})`);
    } else {
      report = await importLogText(file, fs.readFileSync(file, "utf8"), opts);
    }
    reports.push(report);
    opts.onFile?.(report, i + 1, files.length);
  }
  return { files: reports, totals: summarize(reports) };
}

/** The report of a file that was not read (too large), with the reason. */
export function unreadFileReport(file: string, error: string): FileReport {
  return { file, format: "unknown", episodes: 0, added: 0, skipped: 0, rejected: [], flagged: 0, flags: {}, error };
}

/** Episodes per flag. */
export function countFlags(episodes: Array<{ flags?: string[] }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of episodes) for (const f of e.flags ?? []) out[f] = (out[f] ?? 0) + 1;
  return out;
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
