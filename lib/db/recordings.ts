import "server-only";
import type Database from "better-sqlite3";
import { config } from "@/lib/config";
import type { Recording, RecordingChunk, RecordingEvent, StoredRecordingChunk } from "@/lib/recording/events";
import { chunkBytes } from "@/lib/recording/events";
import { withWriteLock } from "./lock";
import { rowParser } from "./rows";
import { cachedStatement, pgTransaction, withSql, type Sql } from "./sql";
import { withRaw } from "./sqlite";

/** What appending a chunk did: stored it, or dropped it because the episode's cap was reached. */
export interface AppendRecordingResult {
  stored: boolean;
  /** True once the episode's recording has reached its cap (this chunk or an earlier one). */
  truncated: boolean;
  bytes: number;
}

const TOTALS_SQL = `SELECT COALESCE(MAX("seq") + 1, 0) AS "next", COALESCE(SUM("bytes"), 0) AS "bytes", COALESCE(MAX("truncated"), 0) AS "truncated" FROM "RecordingChunk" WHERE "episodeId" = ?`;
const PG_TOTALS_SQL = `SELECT COALESCE(MAX("seq") + 1, 0) AS "next", COALESCE(SUM("bytes"), 0) AS "bytes", COALESCE(BOOL_OR("truncated"), false) AS "truncated" FROM "RecordingChunk" WHERE "episodeId" = ?`;
const INSERT_SQL = `INSERT INTO "RecordingChunk" ("episodeId", "seq", "turnIndex", "startedAt", "events", "bytes", "cols", "rows", "truncated") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

type Totals = { next: number; bytes: number; truncated: boolean };

/**
 * Decides what of a chunk fits under the cap: all of it, the events before the cap (the chunk
 * is then marked truncated), or nothing (the cap was reached before).
 */
function fitChunk(chunk: RecordingChunk, totals: Totals, maxBytes: number): { events: RecordingEvent[]; truncated: boolean } | null {
  if (totals.truncated) return null;
  const room = maxBytes - totals.bytes;
  if (chunkBytes(chunk.events) <= room) return { events: chunk.events, truncated: false };
  const kept: RecordingEvent[] = [];
  let used = 0;
  for (const e of chunk.events) {
    const b = chunkBytes([e]);
    if (used + b > room) break;
    kept.push(e);
    used += b;
  }
  return { events: kept, truncated: true };
}

/**
 * Appends one chunk of an episode's recording (numbered after the last), keeping the episode under
 * `maxBytes` of event data: the chunk that reaches the cap is stored cut and marked truncated, and
 * later chunks are dropped.
 */
export async function appendRecordingChunk({
  episodeId,
  chunk,
  maxBytes,
}: {
  episodeId: string;
  chunk: RecordingChunk;
  maxBytes: number;
}): Promise<AppendRecordingResult> {
  const store = config().store;
  const row = (t: Totals, f: { events: RecordingEvent[]; truncated: boolean }) =>
    [episodeId, t.next, chunk.turnIndex, chunk.startedAt, JSON.stringify(f.events), chunkBytes(f.events), chunk.cols ?? null, chunk.rows ?? null] as const;
  if (store.kind === "postgresql") {
    return pgTransaction(store.url, async (sql: Sql) => {
      // One writer per episode at a time (the chunk numbers must not collide).
      await sql.get(`SELECT "id" FROM "Episode" WHERE "id" = ? FOR UPDATE`, [episodeId]);
      const r = (await sql.get<{ next: unknown; bytes: unknown; truncated: unknown }>(PG_TOTALS_SQL, [episodeId]))!;
      const t: Totals = { next: Number(r.next), bytes: Number(r.bytes), truncated: r.truncated === true || r.truncated === 1 };
      const f = fitChunk(chunk, t, maxBytes);
      if (!f) return { stored: false, truncated: true, bytes: t.bytes };
      await sql.run(INSERT_SQL, [...row(t, f), f.truncated]);
      return { stored: true, truncated: f.truncated, bytes: t.bytes + chunkBytes(f.events) };
    });
  }
  return withWriteLock(() =>
    withRaw((db: Database.Database) =>
      db
        .transaction((): AppendRecordingResult => {
          const r = cachedStatement(db, TOTALS_SQL).get(episodeId) as { next: number; bytes: number; truncated: number };
          const t: Totals = { next: r.next, bytes: r.bytes, truncated: r.truncated === 1 };
          const f = fitChunk(chunk, t, maxBytes);
          if (!f) return { stored: false, truncated: true, bytes: t.bytes };
          cachedStatement(db, INSERT_SQL).run(...row(t, f), f.truncated ? 1 : 0);
          return { stored: true, truncated: f.truncated, bytes: t.bytes + chunkBytes(f.events) };
        })
        .immediate(),
    ),
  );
}

/** A whole recording as an export carries it (the importer's input). */
export interface ImportedRecording {
  truncated: boolean;
  cols: number | null;
  rows: number | null;
  chunks: { seq: number; turnIndex: number; startedAt: number; events: RecordingEvent[] }[];
}

function importedRows(episodeId: string, r: ImportedRecording): unknown[][] {
  // The truncated flag goes on the last chunk, as the cap marks the chunk at which it was hit.
  return r.chunks.map((c, i) => [
    episodeId,
    c.seq,
    c.turnIndex,
    c.startedAt,
    JSON.stringify(c.events),
    chunkBytes(c.events),
    r.cols,
    r.rows,
    r.truncated && i === r.chunks.length - 1,
  ]);
}

/** Stores an imported recording on a SQLite connection, inside the caller's transaction (the bulk importer). */
export function insertRecordingRaw(db: Database.Database, episodeId: string, r: ImportedRecording): void {
  const stmt = cachedStatement(db, INSERT_SQL);
  for (const row of importedRows(episodeId, r)) stmt.run(...row.slice(0, 8), row[8] ? 1 : 0);
}

/** The same on PostgreSQL, inside the caller's transaction. */
export async function insertRecording(sql: Sql, episodeId: string, r: ImportedRecording): Promise<void> {
  for (const row of importedRows(episodeId, r)) await sql.run(INSERT_SQL, row);
}

const CHUNK_COLUMNS = ["episodeId", "seq", "turnIndex", "startedAt", "events", "bytes", "cols", "rows", "truncated"] as const;
const chunkRow = rowParser("RecordingChunk", CHUNK_COLUMNS);
type ChunkRow = ReturnType<typeof chunkRow.one>;
const SELECT_COLUMNS = CHUNK_COLUMNS.map((c) => `"${c}"`).join(", ");

function toRecording(rows: ChunkRow[]): Recording {
  const chunks: StoredRecordingChunk[] = rows.map((r) => ({
    seq: r.seq,
    turnIndex: r.turnIndex,
    startedAt: r.startedAt,
    events: JSON.parse(r.events) as RecordingEvent[],
    bytes: r.bytes,
    ...(r.cols ? { cols: r.cols } : {}),
    ...(r.rows ? { rows: r.rows } : {}),
  }));
  const sized = [...chunks].reverse().find((c) => c.cols && c.rows);
  return {
    chunks,
    bytes: chunks.reduce((n, c) => n + c.bytes, 0),
    truncated: rows.some((r) => r.truncated),
    cols: sized?.cols ?? null,
    rows: sized?.rows ?? null,
  };
}

/** An episode's recording, chunks in order (empty when nothing was recorded). */
export async function getRecordingByEpisode({ episodeId }: { episodeId: string }): Promise<Recording> {
  const rows = chunkRow.all(
    await withSql((sql) => sql.all(`SELECT ${SELECT_COLUMNS} FROM "RecordingChunk" WHERE "episodeId" = ? ORDER BY "seq"`, [episodeId])),
  );
  return toRecording(rows);
}

/** The recordings of several episodes (export), on the caller's connection; episodes without one are absent. */
export async function listRecordingsByEpisodes(sql: Sql, episodeIds: readonly string[]): Promise<Map<string, Recording>> {
  const out = new Map<string, Recording>();
  if (episodeIds.length === 0) return out;
  const rows = chunkRow.all(
    await sql.all(`SELECT ${SELECT_COLUMNS} FROM "RecordingChunk" WHERE "episodeId" ${sql.dialect.inList("?")} ORDER BY "episodeId", "seq"`, [
      sql.dialect.listValue(episodeIds),
    ]),
  );
  const by = new Map<string, ChunkRow[]>();
  for (const r of rows) {
    let list = by.get(r.episodeId);
    if (!list) by.set(r.episodeId, (list = []));
    list.push(r);
  }
  for (const [id, list] of by) out.set(id, toRecording(list));
  return out;
}
