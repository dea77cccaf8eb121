import "server-only";
import { uuidv7 } from "./ids";
import type Database from "better-sqlite3";
import { config } from "@/lib/config";
import { withWriteLock } from "./lock";
import { searchDocText } from "./dialect";
import { pgTransaction, withSql, type Sql } from "./sql";
import { withRaw } from "./sqlite";
import { episodeRowBinder, episodeStartFields, type EpisodeFieldsInMs, type EpisodeStart } from "./episode-writer";
import { insertTranscriptMessagesRaw, type TranscriptMessageInput } from "./transcripts";
import { insertRecording, insertRecordingRaw, type ImportedRecording } from "./recordings";
import { EPISODE_RECORD_KEYS } from "./record";
import { pgCodec, pgTurnWriter, SQLITE_CODEC, sqliteTurnWriter, turnCounters, type Codec, type TurnInput } from "./turn-writer";
import { insertDetectorTagsRaw, insertDetectorTagsSql, type EpisodeDetectorTag } from "./annotations";

/** The outcome fields an import states; the other record fields it may leave out (null, or the column's default). */
type OutcomeKey = "status" | "reward" | "success" | "startedAt";
type OptionalKey =
  | "errorReason"
  | "breakdown"
  | "solvedAtTurn"
  | "goldObservation"
  | "agentObservation"
  | "firstActionAt"
  | "endedAt"
  | "durationMs"
  | "sourceFile"
  | "tags"
  | "flags"
  | "turnsTaken";

/**
 * A finished episode to store in bulk (imported logs): the episode record (lib/db/record.ts) as an
 * import states it, times as Unix milliseconds: its start (without run or study: an import belongs
 * to neither; mode import unless it says), its outcome, and its turns; the counters are its turns'.
 */
export type BulkEpisode = Omit<EpisodeStart, "runId" | "studyId"> &
  EpisodeFieldsInMs<OutcomeKey> &
  Partial<EpisodeFieldsInMs<OptionalKey>> & {
    id?: string;
    /** The idempotency key: an episode whose key is stored already is skipped. */
    sourceKey: string;
    turns: BulkTurn[];
    /** The conversation with the model, each message once. */
    messages?: (TranscriptMessageInput & { turnIndex: number })[];
    /** A person's recorded session (console keys and output, editor changes), as an export carries it. */
    recording?: ImportedRecording;
    /** The failure detectors' tags (lib/failures/machine-tags.ts), stored with the episode. */
    detectorTags?: EpisodeDetectorTag[];
  };

/**
 * A turn to store in bulk: what the one turn writer takes (lib/db/turn-writer.ts), with its outcome
 * stated (null when the log does not say: the failure detectors read it) and times as Unix ms.
 */
export type BulkTurn = TurnInput & { ok: boolean | null; startedAt?: number | null };

/** The Episode columns an import writes: the record's but the run's and the study's (an import belongs to neither). */
const EPISODE_COLS = EPISODE_RECORD_KEYS.filter(
  (c): c is Exclude<(typeof EPISODE_RECORD_KEYS)[number], "runId" | "studyId"> => c !== "runId" && c !== "studyId",
);
/** Binds an imported episode's row in EPISODE_COLS order (positional parameters: binding 40 named ones per row costs more than the insert). */
const bindEpisodeRow = episodeRowBinder(EPISODE_COLS);

/**
 * Appends an imported episode's column values to `out` in EPISODE_COLS order, with the engine's
 * booleans and times: its start fields as a live episode's are stored (episodeStartFields), its
 * outcome, and what the writer gives it (id, lineage when the parent is stored, counters, times).
 */
function pushEpisodeRow(
  out: unknown[],
  e: BulkEpisode,
  row: { id: string; parent: string | null; searchKey: number | null; now: number; counters: ReturnType<typeof turnCounters> },
  c: Codec,
): void {
  const start = episodeStartFields(e, { mode: "import" });
  // Lineage only to a parent that is stored (an import may carry an episode without its parent).
  start.parentEpisodeId = row.parent;
  start.branchTurn = row.parent ? (e.branchTurn ?? null) : null;
  bindEpisodeRow(
    out,
    start,
    {
      id: row.id,
      status: e.status,
      errorReason: e.errorReason ?? null,
      reward: e.reward,
      breakdown: e.breakdown ?? null,
      success: e.success,
      solvedAtTurn: e.solvedAtTurn ?? null,
      goldObservation: e.goldObservation ?? null,
      agentObservation: e.agentObservation ?? null,
      startedAt: e.startedAt,
      firstActionAt: e.firstActionAt ?? null,
      endedAt: e.endedAt ?? null,
      durationMs: e.durationMs ?? null,
      sourceFile: e.sourceFile ?? null,
      sourceKey: e.sourceKey,
      tags: e.tags ?? "",
      flags: e.flags ?? "",
      turnCount: row.counters.turnCount,
      turnsTaken: e.turnsTaken ?? null,
      invalidCount: row.counters.invalidCount,
      checkedCount: row.counters.checkedCount,
      createdAt: row.now,
      updatedAt: row.now,
      searchKey: row.searchKey,
    },
    c,
  );
}

const FILE_SEEN_SQL = `SELECT "episodes", "rejected" FROM "ImportedFile" WHERE "contentHash" = ?`;
// A file imported again after a change that rejects fewer of its records says what it gives now.
const FILE_RECORD_SQL = `INSERT INTO "ImportedFile" ("contentHash", "path", "format", "episodes", "rejected", "importedAt") VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT ("contentHash") DO UPDATE SET "episodes" = excluded."episodes", "rejected" = excluded."rejected", "format" = excluded."format"`;

const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();
function prepare(db: Database.Database) {
  const q = (c: string) => `"${c}"`;
  return {
    episode: db.prepare(`INSERT INTO "Episode" (${EPISODE_COLS.map(q).join(", ")}) VALUES (${EPISODE_COLS.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`),
    parentExists: db.prepare(`SELECT 1 FROM "Episode" WHERE "id" = ?`),
    lastSearchKey: db.prepare(`SELECT IFNULL(MAX("searchKey"), 0) AS "k" FROM "Episode"`),
    deferFts: db.prepare(`UPDATE "_FtsControl" SET "deferred" = ? WHERE "id" = 1`),
    // The insert triggers whose work this path does itself (search keys, the episode's text).
    insertTriggers: db.prepare(`SELECT "name", "sql" FROM "sqlite_master" WHERE "type" = 'trigger' AND "name" IN ('Episode_text_ai', 'Turn_text_ai')`),
    indexEpisode: db.prepare(`INSERT INTO "EpisodeText"(rowid, "query", "body") VALUES (?, ?, ?)`),
    fileRecord: db.prepare(FILE_RECORD_SQL),
  };
}
function stmts(db: Database.Database) {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepare(db)));
  return s;
}

/** Whether a file (by content hash, flags included) was imported before, and what it gave. */
export async function getImportedFileByHash({ contentHash }: { contentHash: string }): Promise<{ episodes: number; rejected: number } | null> {
  return withSql(async (sql) => (await sql.get<{ episodes: number; rejected: number }>(FILE_SEEN_SQL, [contentHash])) ?? null);
}

/**
 * Stores one file's episodes in a single transaction: all of them or (on a storage failure)
 * none. Episodes whose id or sourceKey is already stored are skipped, so importing twice stores
 * nothing new. Records the file's content hash when given. Counters (turns, invalid, checked)
 * are computed here from the turns.
 */
export async function insertEpisodesBulk({
  episodes,
  file,
}: {
  episodes: BulkEpisode[];
  file?: { contentHash: string; path: string; format: string; rejected: number };
}): Promise<{ added: number; skipped: number; addedIds: string[] }> {
  const store = config().store;
  if (store.kind === "postgresql") return pgTransaction(store.url, (sql) => insertEpisodesBulkPg(sql, episodes, file));
  return withWriteLock(() =>
    withRaw((db) => {
      const s = stmts(db);
      const run = db.transaction(() => {
        let added = 0;
        const addedIds: string[] = [];
        const now = Date.now();
        // Turn rows wait in the writer until a batch is full (their episode is inserted first: the foreign key).
        const turns = sqliteTurnWriter(db, now);
        // Index each new episode once, with all its turns, rather than through the per-turn
        // triggers (see the episode_text_search migration); the switch never outlives this
        // transaction. Episodes get their search keys here, so the Episode trigger stays quiet.
        let searchKey = (s.lastSearchKey.get() as { k: number }).k;
        s.deferFts.run(1);
        // An AFTER INSERT trigger costs every row a trigger frame even when its WHEN is false
        // (about 2.5 s of CPU over the 17,702 published episodes, more than the rows themselves).
        // This path gives search keys and indexes its rows itself, so those two triggers go for
        // the transaction and come back, as they were, before it commits: no other connection
        // ever sees them gone (a failure rolls the drop back with the rows).
        const triggers = s.insertTriggers.all() as { name: string; sql: string }[];
        for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
        // Each new episode's search document, indexed after the file's other rows: FTS5 writes the
        // terms it holds in memory out to disk at every statement savepoint of the transaction (an
        // Episode or Turn insert opens one), so indexing between them wrote a small segment per
        // episode and merged those again; after them the file's terms collect in memory and go out
        // in a few large segments (the published set: the writes 4.3 -> 3.2 s of CPU, median of 4).
        const docs: [searchKey: number, query: string, body: string][] = [];
        for (const e of episodes) {
          const id = e.id ?? uuidv7();
          const parent = e.parentEpisodeId && s.parentExists.get(e.parentEpisodeId) ? e.parentEpisodeId : null;
          const values: unknown[] = [];
          pushEpisodeRow(values, e, { id, parent, searchKey: searchKey + 1, now, counters: turnCounters(e.turns) }, SQLITE_CODEC);
          const res = s.episode.run(values);
          if (res.changes === 0) continue;
          searchKey++;
          added++;
          addedIds.push(id);
          if (e.messages?.length) insertTranscriptMessagesRaw(db, id, e.messages);
          if (e.recording?.chunks.length) insertRecordingRaw(db, id, e.recording);
          if (e.detectorTags?.length) insertDetectorTagsRaw(db, id, e.detectorTags, now);
          let body = "";
          for (const t of e.turns) {
            body += (body ? " " : "") + t.action + " " + t.observation;
            turns.add(id, t);
          }
          docs.push([searchKey, e.query, body]);
        }
        turns.flush();
        for (const [key, query, body] of docs) s.indexEpisode.run(key, query, body);
        for (const t of triggers) db.exec(t.sql);
        s.deferFts.run(0);
        if (file) s.fileRecord.run(file.contentHash, file.path, file.format, episodes.length, file.rejected, now);
        return { added, skipped: episodes.length - added, addedIds };
      });
      // The foreign keys this path writes hold by construction (each episode is inserted before its
      // turns and messages, a turn follows only an episode just added, a parent is looked up), so
      // SQLite's per-row check of them (an Episode index lookup for every turn) is skipped for the
      // transaction. The setting cannot change inside a transaction: it goes off just before and
      // back on just after, with nothing else on this connection in between (this is synchronous).
      db.pragma("foreign_keys = OFF");
      try {
        return run.immediate();
      } finally {
        db.pragma("foreign_keys = ON");
      }
    }),
  );
}

/**
 * Runs a series of bulk writes (an import of many files) with SQLite's automatic checkpoints off,
 * then checkpoints once. Each file's transaction still commits on its own; what changes is that
 * the write-ahead log is copied into the database file once at the end instead of after every
 * file (the index and full-text pages a file touches were copied again for each one). Other
 * connections read and write as usual meanwhile. On PostgreSQL it only runs `fn`.
 */
export async function bulkWriteSession<T>(fn: () => Promise<T>): Promise<T> {
  if (config().store.kind !== "sqlite") return fn();
  const before = withRaw((db) => db.pragma("wal_autocheckpoint", { simple: true }) as number);
  withRaw((db) => db.pragma("wal_autocheckpoint = 0"));
  try {
    return await fn();
  } finally {
    withRaw((db) => {
      db.pragma(`wal_autocheckpoint = ${Number(before)}`);
      db.pragma("wal_checkpoint(PASSIVE)");
    });
  }
}

/** Rows per multi-row INSERT on PostgreSQL (its 65,535 bound parameters over 42 episode columns). */
const PG_BATCH = 500;

/** A multi-row INSERT's VALUES for `rows` rows of `cols` columns, with positional placeholders. */
function valuesOf(rows: number, cols: number): string {
  const row = `(${Array(cols).fill("?").join(", ")})`;
  return Array(rows).fill(row).join(", ");
}

/**
 * insertEpisodesBulk on PostgreSQL, inside the caller's transaction: episodes in multi-row INSERTs
 * (ON CONFLICT DO NOTHING, RETURNING the ids stored, so a re-import adds nothing), then their turns
 * and messages likewise, then one search document per new episode (the per-row triggers are
 * quiet meanwhile: ic.fts_deferred, local to this transaction).
 */
async function insertEpisodesBulkPg(
  sql: Sql,
  episodes: BulkEpisode[],
  file?: { contentHash: string; path: string; format: string; rejected: number },
): Promise<{ added: number; skipped: number; addedIds: string[] }> {
  const t = sql.dialect.time;
  const codec = pgCodec(sql);
  const now = Date.now();
  await sql.run(`SELECT set_config('ic.fts_deferred', 'on', true), set_config('ic.words_deferred', 'on', true)`);
  /** The search keys of the documents written, whose words' bits are added at the end (ic_episode_words_add). */
  const searchKeys: number[] = [];
  const parents = new Set(
    (
      await sql.all<{ id: string }>(`SELECT "id" FROM "Episode" WHERE "id" = ANY(CAST(? AS TEXT[]))`, [
        [...new Set(episodes.map((e) => e.parentEpisodeId).filter((p): p is string => !!p))],
      ])
    ).map((r) => r.id),
  );
  const addedIds: string[] = [];
  const byId = new Map<string, BulkEpisode>();
  for (let i = 0; i < episodes.length; i += PG_BATCH) {
    const chunk = episodes.slice(i, i + PG_BATCH);
    const params: unknown[] = [];
    const chunkIds: string[] = [];
    for (const e of chunk) {
      const id = e.id ?? uuidv7();
      byId.set(id, e);
      chunkIds.push(id);
      const parent = e.parentEpisodeId && (parents.has(e.parentEpisodeId) || byId.has(e.parentEpisodeId)) ? e.parentEpisodeId : null;
      // searchKey is left to the trigger (the sequence).
      pushEpisodeRow(params, e, { id, parent, searchKey: null, now, counters: turnCounters(e.turns) }, codec);
    }
    const rows = await sql.all<{ id: string; searchKey: number }>(
      `INSERT INTO "Episode" (${EPISODE_COLS.map((c) => `"${c}"`).join(", ")}) VALUES ${valuesOf(chunk.length, EPISODE_COLS.length)} ON CONFLICT DO NOTHING RETURNING "id", "searchKey"`,
      params,
    );
    const added = new Set(rows.map((r) => r.id));
    // In input order, as the SQLite path reports them.
    for (const id of chunkIds) if (added.has(id)) addedIds.push(id);
    const docs: unknown[] = [];
    for (const r of rows) {
      const e = byId.get(r.id)!;
      searchKeys.push(Number(r.searchKey));
      docs.push(r.searchKey, searchDocText(e.query + " " + e.turns.map((x) => x.action + " " + x.observation).join(" ")).slice(0, 4_000_000));
    }
    if (rows.length)
      await sql.run(
        `INSERT INTO "EpisodeText" ("searchKey", "doc") SELECT k, strip(to_tsvector('simple', d)) FROM (VALUES ${Array(rows.length).fill("(CAST(? AS INTEGER), CAST(? AS TEXT))").join(", ")}) AS v(k, d)`,
        docs,
      );
    const turns = pgTurnWriter(sql, now);
    const messageRows: unknown[][] = [];
    for (const r of rows) {
      const e = byId.get(r.id)!;
      for (const x of e.turns) turns.add(r.id, x);
      for (const m of e.messages ?? []) messageRows.push([r.id, m.seq, m.turnIndex, m.role, m.content, m.droppedTurns ?? null]);
    }
    await turns.flush();
    for (let j = 0; j < messageRows.length; j += PG_BATCH * 4) {
      const part = messageRows.slice(j, j + PG_BATCH * 4);
      await sql.run(
        `INSERT INTO "TranscriptMessage" ("episodeId", "seq", "turnIndex", "role", "content", "droppedTurns") VALUES ${valuesOf(part.length, 6)}`,
        part.flat(),
      );
    }
    for (const r of rows) {
      const rec = byId.get(r.id)!.recording;
      if (rec?.chunks.length) await insertRecording(sql, r.id, rec);
    }
    await insertDetectorTagsSql(
      sql,
      rows.flatMap((r) => (byId.get(r.id)!.detectorTags ?? []).map((tag) => ({ ...tag, episodeId: r.id }))),
      now,
    );
  }
  // The words' bits of every document written, at once: per batch, each block's rows of
  // "EpisodeWord" were written once a batch (the search_word_bits migration).
  await sql.run(`SELECT ic_episode_words_add(CAST(? AS INTEGER[])), set_config('ic.words_deferred', 'off', true)`, [searchKeys]);
  if (file) await sql.run(FILE_RECORD_SQL, [file.contentHash, file.path, file.format, episodes.length, file.rejected, t(now)]);
  return { added: addedIds.length, skipped: episodes.length - addedIds.length, addedIds };
}
