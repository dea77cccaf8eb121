import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getImportedFileByHash, insertEpisodesBulk } from "@/lib/db/bulk-import";
import { atifToEpisode, AtifRecordError, readAtifTrajectory, readRewardFile, textLooksLikeAtif, type AtifTrial } from "./atif/read";
import type { FileReport } from "./import";
import type { ParsedEpisode } from "./intercode";
import { NotInspectLogError, openEvalFile, readInspectJsonText, textLooksLikeInspect, type InspectBatch } from "./inspect/log";
import { countFlags, MAX_IMPORT_FILE_BYTES, toBulkEpisode, tooLarge, type EcosystemFormat, type LogAttribution, type RecordProblem } from "./parse-log";
import { intercodeTaskLinker, type TaskLinker } from "./task-links";

/**
 * Importing other tools' logs: Inspect AI's eval logs (`.eval`, `.json`) and Harbor's ATIF
 * trajectories (a trajectory.json, a trial folder, a folder of trials). Each becomes episodes in
 * the shape the InterCode importer gives (ParsedEpisode), stored by the one bulk writer
 * (insertEpisodesBulk); a large `.eval` is stored batch by batch as it is read, and its file is
 * recorded as imported with its last batch (so a log cut short is read again, and its stored
 * samples skipped by their keys).
 */

export type EcosystemUnit = { kind: "inspect-eval" | "inspect-json" | "atif-json" | "atif-trial" | "atif-job"; path: string };

export interface EcosystemImportOptions extends LogAttribution {
  linker?: TaskLinker;
  /** Bytes read of the file, as it goes (a large `.eval`). */
  onProgress?: (file: string, done: number, total: number) => void;
}

const TRAJECTORY = path.join("agent", "trajectory.json");
const isTrial = (dir: string) => fs.existsSync(path.join(dir, TRAJECTORY));

/** What a path is, when it is one of these formats; null for anything else (an InterCode log, JSONL). */
export function ecosystemUnitOf(p: string): EcosystemUnit | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return null;
  }
  if (st.isDirectory()) {
    if (isTrial(p)) return { kind: "atif-trial", path: p };
    const children = fs.readdirSync(p).map((n) => path.join(p, n));
    if (children.some((c) => fs.statSync(c).isDirectory() && isTrial(c))) return { kind: "atif-job", path: p };
    return null;
  }
  if (/\.eval$/i.test(p)) return { kind: "inspect-eval", path: p };
  if (!/\.json$/i.test(p)) return null;
  const fd = fs.openSync(p, "r");
  const head = Buffer.alloc(65536);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  const text = head.subarray(0, n).toString("utf8");
  if (textLooksLikeInspect(text)) return { kind: "inspect-json", path: p };
  if (textLooksLikeAtif(text)) return { kind: "atif-json", path: p };
  return null;
}

/** The format of an uploaded JSON text, when it is one of these. */
export function ecosystemFormatOfText(text: string): EcosystemFormat | null {
  if (textLooksLikeInspect(text)) return "inspect";
  if (textLooksLikeAtif(text)) return "atif";
  return null;
}

const attributionKey = (o: LogAttribution) => JSON.stringify([o.model ?? null, o.policy ?? null, o.turnLimit ?? null, o.dataset ?? null]);

/** Stores batches of one file's episodes through the bulk writer; the file is recorded with the last one. */
class FileStore {
  readonly report: FileReport;
  constructor(
    private readonly name: string,
    private readonly contentHash: string,
    format: EcosystemFormat,
  ) {
    this.report = { file: name, format, episodes: 0, added: 0, skipped: 0, rejected: [], flagged: 0, flags: {} };
  }
  async put(b: InspectBatch, last: boolean): Promise<void> {
    this.report.rejected.push(...b.rejected);
    this.report.episodes += b.episodes.length;
    // Counts only: a large log's episodes are not kept past their batch.
    this.report.flagged += b.episodes.filter((e) => e.flags?.length).length;
    for (const [f, n] of Object.entries(countFlags(b.episodes))) this.report.flags[f] = (this.report.flags[f] ?? 0) + n;
    if (!b.episodes.length && !last) return;
    const res = await insertEpisodesBulk({
      episodes: b.episodes.map(toBulkEpisode),
      file: last ? { contentHash: this.contentHash, path: this.name, format: this.report.format, rejected: this.report.rejected.length } : undefined,
    });
    this.report.added += res.added;
    this.report.skipped += res.skipped;
  }
}

function failed(file: string, format: EcosystemFormat | "unknown", error: string): FileReport {
  return { file, format, episodes: 0, added: 0, skipped: 0, rejected: [], flagged: 0, flags: {}, error };
}

async function seen(file: string, format: EcosystemFormat, contentHash: string): Promise<FileReport | null> {
  const s = await getImportedFileByHash({ contentHash });
  if (s?.rejected !== 0) return null;
  return { file, format, episodes: s.episodes, added: 0, skipped: s.episodes, rejected: [], flagged: 0, flags: {} };
}

const sha = (...parts: string[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\0");
  return h.digest("hex");
};

/** Imports an Inspect `.eval` file, a batch of samples at a time (each its own transaction; the file is recorded with the last). */
async function importEval(file: string, opts: EcosystemImportOptions, linker: TaskLinker): Promise<FileReport> {
  const onProgress = opts.onProgress ? (d: number, t: number) => opts.onProgress!(file, d, t) : undefined;
  let log;
  try {
    log = openEvalFile(file, { attribution: opts, linker, onProgress });
  } catch (err) {
    if (err instanceof NotInspectLogError) return failed(file, "inspect", err.message);
    throw err;
  }
  try {
    const contentHash = sha(log.contentKey, attributionKey(opts));
    const s = await seen(file, "inspect", contentHash);
    if (s) return s;
    const store = new FileStore(file, contentHash, "inspect");
    let pending: InspectBatch | null = null;
    for (const b of log.batches()) {
      if (pending) await store.put(pending, false);
      pending = b;
    }
    await store.put(pending ?? { episodes: [], rejected: [] }, true);
    return store.report;
  } finally {
    log.close();
  }
}

/** Imports an Inspect `.json` log given as text. */
export async function importInspectText(name: string, text: string, opts: EcosystemImportOptions = {}): Promise<FileReport> {
  const linker = opts.linker ?? intercodeTaskLinker();
  const textHash = sha(text);
  const contentHash = sha(textHash, path.basename(name), attributionKey(opts));
  const s = await seen(name, "inspect", contentHash);
  if (s) return s;
  let batch: InspectBatch;
  try {
    batch = readInspectJsonText(name, text, textHash, { attribution: opts, linker });
  } catch (err) {
    if (err instanceof NotInspectLogError) return failed(name, "inspect", err.message);
    throw err;
  }
  const store = new FileStore(name, contentHash, "inspect");
  await store.put(batch, true);
  return store.report;
}

const readText = (f: string) => fs.readFileSync(f, "utf8");

/** Reads one trajectory with its trial's files (when `trialDir`), into an episode or a rejection. */
function readTrial(
  where: string,
  trajText: string,
  trialDir: string | null,
  opts: LogAttribution,
  linker: TaskLinker,
  index: number,
): { episode?: ParsedEpisode; problem?: RecordProblem; hashed: string } {
  const trial: AtifTrial = {};
  let hashed = trajText;
  try {
    let data: unknown;
    try {
      data = JSON.parse(trajText);
    } catch (err) {
      throw new AtifRecordError(`damaged JSON: ${(err as Error).message}`);
    }
    const traj = readAtifTrajectory(data);
    if (trialDir) {
      trial.name = path.basename(trialDir);
      for (const f of ["reward.txt", "reward.json"]) {
        const p = path.join(trialDir, "verifier", f);
        if (fs.existsSync(p)) {
          const t = readText(p);
          hashed += "\0" + t;
          const r = readRewardFile(`verifier/${f}`, t);
          trial.reward = r.reward;
          if (r.rewards) trial.rewards = r.rewards;
          break;
        }
      }
      const rp = path.join(trialDir, "result.json");
      if (fs.existsSync(rp)) {
        const t = readText(rp);
        hashed += "\0" + t;
        try {
          const v = JSON.parse(t);
          if (v && typeof v === "object" && !Array.isArray(v)) trial.result = v;
        } catch (err) {
          throw new AtifRecordError(`result.json: damaged JSON: ${(err as Error).message}`);
        }
      }
    }
    const episode = atifToEpisode(traj, trial, {
      sourceFile: trialDir ? path.basename(trialDir) : path.basename(where),
      importedAt: new Date(),
      linker,
      attribution: opts,
      contentHash: sha(hashed),
    });
    return { episode, hashed };
  } catch (err) {
    if (!(err instanceof AtifRecordError)) throw err;
    return { problem: { file: where, record: trialDir ? path.basename(trialDir) : "trajectory", index, reason: err.message }, hashed };
  }
}

/** Imports ATIF: a trajectory.json, a trial folder, or a folder of trials (one file report: one run). */
async function importAtif(unit: EcosystemUnit, opts: EcosystemImportOptions, linker: TaskLinker): Promise<FileReport> {
  const dirs =
    unit.kind === "atif-trial"
      ? [unit.path]
      : unit.kind === "atif-job"
        ? fs
            .readdirSync(unit.path)
            .sort()
            .map((n) => path.join(unit.path, n))
            .filter((d) => fs.statSync(d).isDirectory() && isTrial(d))
        : [];
  const batch: InspectBatch = { episodes: [], rejected: [] };
  const hashes: string[] = [];
  if (unit.kind === "atif-json") {
    const size = fs.statSync(unit.path).size;
    if (size > MAX_IMPORT_FILE_BYTES) return failed(unit.path, "atif", tooLarge(size));
    const r = readTrial(unit.path, readText(unit.path), null, opts, linker, 0);
    hashes.push(r.hashed);
    if (r.episode) batch.episodes.push(r.episode);
    if (r.problem) batch.rejected.push(r.problem);
  }
  dirs.forEach((d, i) => {
    const r = readTrial(path.join(d, TRAJECTORY), readText(path.join(d, TRAJECTORY)), d, opts, linker, i);
    hashes.push(r.hashed);
    if (r.episode) batch.episodes.push(r.episode);
    if (r.problem) batch.rejected.push(r.problem);
    opts.onProgress?.(unit.path, i + 1, dirs.length);
  });
  if (unit.kind === "atif-json" && batch.rejected.length && !batch.episodes.length) return failed(unit.path, "atif", batch.rejected[0].reason);
  const contentHash = sha(...hashes, path.basename(unit.path), attributionKey(opts));
  const s = await seen(unit.path, "atif", contentHash);
  if (s) return s;
  const store = new FileStore(unit.path, contentHash, "atif");
  await store.put(batch, true);
  return store.report;
}

/** Imports an ATIF trajectory given as text (an upload). */
export async function importAtifText(name: string, text: string, opts: EcosystemImportOptions = {}): Promise<FileReport> {
  const linker = opts.linker ?? intercodeTaskLinker();
  const r = readTrial(name, text, null, opts, linker, 0);
  if (r.problem) return failed(name, "atif", r.problem.reason);
  const contentHash = sha(r.hashed, path.basename(name), attributionKey(opts));
  const s = await seen(name, "atif", contentHash);
  if (s) return s;
  const store = new FileStore(name, contentHash, "atif");
  await store.put({ episodes: [r.episode!], rejected: [] }, true);
  return store.report;
}

/** Imports one unit (a file or a folder of these formats). */
export async function importEcosystemUnit(unit: EcosystemUnit, opts: EcosystemImportOptions = {}): Promise<FileReport> {
  const linker = opts.linker ?? intercodeTaskLinker();
  if (unit.kind === "inspect-eval") return importEval(unit.path, opts, linker);
  if (unit.kind === "inspect-json") {
    const size = fs.statSync(unit.path).size;
    if (size > MAX_IMPORT_FILE_BYTES) return failed(unit.path, "inspect", tooLarge(size));
    return importInspectText(unit.path, readText(unit.path), { ...opts, linker });
  }
  return importAtif(unit, opts, linker);
}
