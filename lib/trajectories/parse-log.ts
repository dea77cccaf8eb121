import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { BulkEpisode } from "@/lib/db/bulk-import";
import { detectorTagsOf } from "@/lib/failures/machine-tags";
import {
  detectRecordFormat,
  inferMetaFromFileName,
  metaFromRunMeta,
  parseInterCodeRecord,
  readRunLog,
  RecordError,
  type LogMeta,
  type ParsedEpisode,
} from "./intercode";
import { jsonlEpisodeSchema } from "./jsonl-schema";

/**
 * Reading a log file into the store's rows, without touching the store: what the importer does
 * before it writes, in whichever thread does it (lib/trajectories/import-worker.ts reads files
 * beside the thread that writes them).
 */

/** Who played and how, when the user says so: these override what file names and run metas say. */
export interface LogAttribution {
  model?: string;
  policy?: string;
  turnLimit?: number;
  dataset?: string;
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

/** `run`: InterCode's `{meta, logs}` run file (its Plan & Solve runs), records in the results format. */
export type LogFormat = "results" | "envlog" | "run" | "jsonl" | "unknown" | EcosystemFormat;

/** Other tools' logs (lib/trajectories/ecosystem-import.ts): Inspect AI's eval logs, Harbor's ATIF trajectories. */
export type EcosystemFormat = "inspect" | "atif";

/** Parsed content of one file: the episodes found and the records rejected. */
export interface ParsedFile {
  format: LogFormat;
  episodes: ParsedEpisode[];
  rejected: RecordProblem[];
  error?: string;
}

/** Biggest log file read (bytes). */
export const MAX_IMPORT_FILE_BYTES = 512 * 1024 * 1024;

/** Why a file above MAX_IMPORT_FILE_BYTES was not read. */
export const tooLarge = (size: number) => `too large (${size} bytes; the limit is ${MAX_IMPORT_FILE_BYTES})`;

/** Who played and how: the flags, else a run file's meta, else the file's name. */
function metaFor(file: string, opts: LogAttribution, runMeta?: LogMeta): LogMeta {
  const m = { ...inferMetaFromFileName(file), ...runMeta };
  if (opts.model !== undefined) {
    m.model = opts.model;
    m.human = opts.model === "human";
    if (m.human) m.model = null;
  }
  if (opts.policy !== undefined) m.policy = opts.policy;
  if (opts.turnLimit !== undefined) m.turnLimit = opts.turnLimit;
  if (opts.dataset !== undefined) {
    m.impliedDataset = m.dataset;
    m.dataset = opts.dataset;
  }
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
export function parseLogText(name: string, text: string, opts: LogAttribution = {}, importedAt = new Date(), textHash?: string): ParsedFile {
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
      const { format: _f, version: _v, ...logged } = parsed.data;
      episodes.push({ ...finishedImport(logged), sourceKey: logged.sourceKey ?? `episode:${logged.id}` });
    });
    return { format: "jsonl", episodes, rejected };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return {
      format: "unknown",
      episodes,
      rejected,
      error: `not a log this importer reads (expected JSON: an InterCode log, icstudio JSONL, an Inspect eval log or an ATIF trajectory; a .eval zip): damaged JSON: ${(err as Error).message}`,
    };
  }
  if (!data || typeof data !== "object")
    return { format: "unknown", episodes, rejected, error: "not a log: the file holds a JSON " + (data === null ? "null" : typeof data) };
  const run = readRunLog(data);
  const records = run ? run.logs : data;
  const entries: Array<[string, unknown]> = Array.isArray(records) ? records.map((v, i) => [String(i), v]) : Object.entries(records);
  const formats = entries.map(([, v]) => detectRecordFormat(v));
  if (!formats.some(Boolean)) {
    const keys = entries
      .slice(0, 5)
      .map(([k]) => k)
      .join(", ");
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
  const bulk: BulkEpisode = {
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
  // The failure detectors run here, where the log is read (the import's reading thread), and their tags go in with the episode.
  bulk.detectorTags = detectorTagsOf(bulk);
  return bulk;
}

/**
 * A log's two hashes from one pass over its text: the text's own (the records' idempotency keys)
 * and the file's, which adds its name and the user's attribution (a file imported once is known by it).
 */
export function logHashes(name: string, text: string, opts: LogAttribution): { textHash: string; contentHash: string } {
  const hasher = createHash("sha256").update(text);
  const textHash = hasher.copy().digest("hex");
  const contentHash = hasher
    .update("\0" + JSON.stringify([path.basename(name), opts.model ?? null, opts.policy ?? null, opts.turnLimit ?? null, opts.dataset ?? null]))
    .digest("hex");
  return { textHash, contentHash };
}

/** Episodes per flag. */
export function countFlags(episodes: Array<{ flags?: string[] }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of episodes) for (const f of e.flags ?? []) out[f] = (out[f] ?? 0) + 1;
  return out;
}

/** One log read and converted, ready to store: everything the writer needs, nothing it must work out. */
export interface PreparedLog {
  file: string;
  contentHash: string;
  format: LogFormat;
  episodes: BulkEpisode[];
  rejected: RecordProblem[];
  flagged: number;
  flags: Record<string, number>;
  /** Set when the whole file could not be read (too large, damaged, not a log). */
  error?: string;
}

/** Reads a log's text into the rows to store (hashes, records, flags). Never throws for bad content. */
export function prepareLogText(name: string, text: string, opts: LogAttribution, hashes = logHashes(name, text, opts)): PreparedLog {
  const parsed = parseLogText(name, text, opts, new Date(), hashes.textHash);
  return {
    file: name,
    contentHash: hashes.contentHash,
    format: parsed.format,
    episodes: parsed.episodes.map(toBulkEpisode),
    rejected: parsed.rejected,
    flagged: parsed.episodes.filter((e) => e.flags?.length).length,
    flags: countFlags(parsed.episodes),
    ...(parsed.error ? { error: parsed.error } : {}),
  };
}

/** Reads a log file from disk into the rows to store; a file above MAX_IMPORT_FILE_BYTES is reported, not read. */
export function prepareLogFile(file: string, opts: LogAttribution): PreparedLog {
  const size = fs.statSync(file).size;
  if (size > MAX_IMPORT_FILE_BYTES)
    return { file, contentHash: "", format: "unknown", episodes: [], rejected: [], flagged: 0, flags: {}, error: tooLarge(size) };
  return prepareLogText(file, fs.readFileSync(file, "utf8"), opts);
}

/**
 * An imported episode is finished by definition: one recorded as running or interrupted is stored
 * abandoned and flagged `unfinished`, so an import can neither seal a task (an open baseline
 * episode does) nor leave an episode that looks live.
 */
function finishedImport<E extends { status: string; flags?: string[] }>(ep: E): E {
  if (ep.status !== "running" && ep.status !== "interrupted") return ep;
  return { ...ep, status: "abandoned", flags: [...new Set([...(ep.flags ?? []), "unfinished"])] };
}
