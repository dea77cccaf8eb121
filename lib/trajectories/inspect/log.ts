import { createHash } from "node:crypto";
import path from "node:path";
import type { ParsedEpisode } from "../intercode";
import type { LogAttribution, RecordProblem } from "../parse-log";
import type { TaskLinker } from "../task-links";
import { parseLenientJson } from "./json";
import { inspectSampleToEpisode, InspectRecordError, looksLikeInspectLog, readInspectHeader, type InspectLogContext } from "./read";
import { ZipError, ZipReader } from "./zip";

/**
 * Reading a whole Inspect log: a `.eval` archive entry by entry (never the whole file), or a
 * `.json` EvalLog (one document). Both give the log's episodes in batches, so the caller stores
 * a large log as it is read, and say how far through the file they are.
 */

export interface InspectReadOptions {
  attribution: LogAttribution;
  linker: TaskLinker;
  importedAt?: Date;
  /** Bytes of the file read so far, of `total`. */
  onProgress?: (done: number, total: number) => void;
}

export interface InspectBatch {
  episodes: ParsedEpisode[];
  rejected: RecordProblem[];
}

/** The log's identity: the same log under any name gives the same key. */
function logKeyOf(header: { eval: { eval_id?: string; run_id?: string; task_id?: string; task: string; created?: string } }, extra: string): string {
  const e = header.eval;
  return createHash("sha256")
    .update(JSON.stringify([e.eval_id ?? null, e.run_id ?? null, e.task_id ?? null, e.task, e.created ?? null, extra]))
    .digest("hex");
}

/** A file that is not an Inspect log, with what was expected. */
export class NotInspectLogError extends Error {}

const SAMPLE_ENTRY = /^samples\/.+\.json$/;

/** An open `.eval` log: its key, and its samples in batches. */
export interface EvalLogReader {
  /** The hash of the archive's central directory, which names every entry's CRC: the file's key without reading it twice. */
  contentKey: string;
  batches(batchBytes?: number): Generator<InspectBatch>;
  close(): void;
}

/**
 * Opens a `.eval` log: header.json (or, for a log still running, _journal/start.json) is read
 * now, each samples/ entry when the batches are, `batchBytes` of entries at a time.
 */
export function openEvalFile(file: string, opts: InspectReadOptions): EvalLogReader {
  let zip: ZipReader;
  try {
    zip = ZipReader.open(file);
  } catch (err) {
    if (err instanceof ZipError)
      throw new NotInspectLogError(`not an Inspect .eval log (expected a zip archive holding header.json and samples/): ${err.message}`);
    throw err;
  }
  try {
    const headerEntry = zip.entry("header.json") ?? zip.entry("_journal/start.json");
    if (!headerEntry) throw new NotInspectLogError("not an Inspect .eval log: the archive has neither header.json nor _journal/start.json");
    let header;
    try {
      header = readInspectHeader(parseLenientJson(zip.readText(headerEntry)));
    } catch (err) {
      throw new NotInspectLogError(`${headerEntry.name}: ${(err as Error).message}`);
    }
    const unfinished = headerEntry.name !== "header.json" || header.status === "started";
    const contentKey = createHash("sha256")
      .update(zip.entries.map((e) => `${e.name}\0${e.crc32}\0${e.size}`).join("\n"))
      .digest("hex");
    const ctx: InspectLogContext = {
      header,
      sourceFile: path.basename(file),
      logKey: logKeyOf(header, contentKey),
      importedAt: opts.importedAt ?? new Date(),
      linker: opts.linker,
      attribution: opts.attribution,
      unfinished,
    };
    const z = zip;
    return {
      contentKey,
      close: () => z.close(),
      *batches(batchBytes = 32 * 1024 * 1024) {
        const sampleEntries = z.entries.filter((e) => SAMPLE_ENTRY.test(e.name));
        let batch: InspectBatch = { episodes: [], rejected: [] };
        let bytes = 0;
        let done = 0;
        for (const [i, e] of sampleEntries.entries()) {
          try {
            batch.episodes.push(inspectSampleToEpisode(parseLenientJson(z.readText(e)), ctx));
          } catch (err) {
            if (!(err instanceof InspectRecordError || err instanceof SyntaxError || err instanceof ZipError)) throw err;
            batch.rejected.push({ file, record: e.name, index: i, reason: err.message });
          }
          bytes += e.size;
          done += e.compressedSize;
          opts.onProgress?.(done, z.size);
          if (bytes >= batchBytes) {
            yield batch;
            batch = { episodes: [], rejected: [] };
            bytes = 0;
          }
        }
        opts.onProgress?.(z.size, z.size);
        yield batch;
      },
    };
  } catch (err) {
    zip.close();
    throw err;
  }
}

/** Reads a `.json` EvalLog's text (NaN and Infinity allowed) into one batch. */
export function readInspectJsonText(name: string, text: string, contentKey: string, opts: InspectReadOptions): InspectBatch {
  let data: unknown;
  try {
    data = parseLenientJson(text);
  } catch (err) {
    throw new NotInspectLogError(`damaged JSON: ${(err as Error).message}`);
  }
  if (!looksLikeInspectLog(data)) throw new NotInspectLogError("not an Inspect eval log (expected a JSON object with version, eval.task and samples)");
  let header;
  try {
    header = readInspectHeader(data);
  } catch (err) {
    throw new NotInspectLogError((err as Error).message);
  }
  const ctx: InspectLogContext = {
    header,
    sourceFile: path.basename(name),
    logKey: logKeyOf(header, contentKey),
    importedAt: opts.importedAt ?? new Date(),
    linker: opts.linker,
    attribution: opts.attribution,
    unfinished: header.status === "started",
  };
  const samples = (data as { samples?: unknown }).samples;
  const out: InspectBatch = { episodes: [], rejected: [] };
  if (samples !== undefined && samples !== null && !Array.isArray(samples)) throw new NotInspectLogError("samples: expected an array");
  (samples ?? []).forEach((s: unknown, i: number) => {
    try {
      out.episodes.push(inspectSampleToEpisode(s, ctx));
    } catch (err) {
      if (!(err instanceof InspectRecordError)) throw err;
      out.rejected.push({ file: name, record: `samples[${i}]`, index: i, reason: err.message });
    }
  });
  opts.onProgress?.(text.length, text.length);
  return out;
}

/** Whether a JSON text's beginning reads like an Inspect EvalLog (Inspect writes version and status first, then eval). */
export function textLooksLikeInspect(text: string): boolean {
  const head = text.slice(0, 4096);
  return /^\s*\{\s*"version"\s*:\s*\d+\s*,/.test(head) && /"eval"\s*:\s*\{/.test(head);
}
