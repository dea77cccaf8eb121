import "server-only";
import type Database from "better-sqlite3";
import { TURN_RECORD_KEYS, type TurnRecord } from "./record";
import { cachedStatement, pgText, type Sql } from "./sql";

/**
 * The one writer of turns, live and in bulk: the Turn INSERT on each engine, the one mapping of a
 * turn record to its column values, and the rule by which turns move their episode's counters.
 * appendTurn (lib/db/episodes.ts, every live turn through lib/episodes/db-recorder.ts) writes one
 * turn with it; insertEpisodesBulk (lib/db/bulk-import.ts) a file's turns, in batches.
 */

/**
 * A turn to write: its record, where what the caller leaves out is stored as null (false for the
 * two flags). Times as Dates (live) or Unix milliseconds (imports).
 */
export type TurnInput = Pick<TurnRecord, "index" | "actor" | "action" | "observation"> &
  Partial<Omit<TurnRecord, "index" | "actor" | "action" | "observation" | "startedAt">> & { startedAt?: Date | number | null };

/** The Turn columns a write fills, in the order of its positional parameters. */
export const TURN_COLUMNS = ["episodeId", ...TURN_RECORD_KEYS, "createdAt"] as const;
type TurnColumn = (typeof TURN_COLUMNS)[number];

/**
 * The counter rule: every turn counts; a turn whose outcome is known (ok not null) is checked, and
 * one that failed (ok false) is invalid. The episode's turnCount, checkedCount and invalidCount
 * are these sums, whether its turns came one by one or in a file.
 */
export function turnCounters(turns: readonly { ok?: boolean | null }[]): { turnCount: number; checkedCount: number; invalidCount: number } {
  let checkedCount = 0;
  let invalidCount = 0;
  for (const t of turns) {
    if (t.ok !== null && t.ok !== undefined) checkedCount++;
    if (t.ok === false) invalidCount++;
  }
  return { turnCount: turns.length, checkedCount, invalidCount };
}

/**
 * A live turn's move of its running episode's counters (turnCounters of the one turn) and first
 * action's time; it changes no row when the episode is not running. Parameters: bumpParams.
 */
export const BUMP_EPISODE_SQL = `UPDATE "Episode" SET "turnCount" = "turnCount" + ?, "invalidCount" = "invalidCount" + ?, "checkedCount" = "checkedCount" + ?,
  "firstActionAt" = COALESCE("firstActionAt", ?), "updatedAt" = ? WHERE "id" = ? AND "status" = 'running'`;

/** BUMP_EPISODE_SQL's parameters for one turn, times in the engine's form. */
export function bumpParams(episodeId: string, turn: Pick<TurnInput, "ok">, startedAt: unknown, now: unknown): unknown[] {
  const c = turnCounters([turn]);
  return [c.turnCount, c.invalidCount, c.checkedCount, startedAt, now, episodeId];
}

/** How an engine stores booleans and times (SQLite: 1/0 and Unix ms; PostgreSQL: its own, see lib/db/dialect.ts). */
export interface Codec {
  bool: (v: boolean) => unknown;
  time: (ms: number) => unknown;
}
export const SQLITE_CODEC: Codec = { bool: (v) => (v ? 1 : 0), time: (ms) => ms };
export const pgCodec = (sql: Sql): Codec => ({ bool: (v) => v, time: sql.dialect.time });

/** The store keeps whole milliseconds (INTEGER columns); a live clock measures fractions. */
const wholeMs = (v: number | null | undefined) => (v == null ? null : Math.round(v));

/** Appends a turn's column values to `out`, in TURN_COLUMNS order: the one mapping of a turn to its row. */
function pushTurnRow(out: unknown[], episodeId: string, t: TurnInput, createdAt: unknown, c: Codec): void {
  const started = t.startedAt == null ? null : c.time(typeof t.startedAt === "number" ? t.startedAt : t.startedAt.getTime());
  out.push(
    episodeId,
    t.index,
    t.actor,
    t.action,
    t.observation,
    t.ok == null ? null : c.bool(t.ok),
    t.reward ?? null,
    t.rawReply ?? null,
    t.thought ?? null,
    t.tokensIn ?? null,
    t.tokensOut ?? null,
    wholeMs(t.durationMs),
    wholeMs(t.latencyMs),
    t.costUsd ?? null,
    t.source ?? null,
    c.bool(Boolean(t.timedOut)),
    c.bool(Boolean(t.aborted)),
    started,
    createdAt,
  );
}

/**
 * Turns go in on SQLite as multi-row INSERTs of this many rows: one statement per row spends more
 * on the statement (step, reset, the AUTOINCREMENT counter read and written each time) than on
 * the row.
 */
const SQLITE_BATCH = 64;
const sqliteInsert = (rows: number) =>
  `INSERT INTO "Turn" (${TURN_COLUMNS.map((c) => `"${c}"`).join(", ")}) VALUES ${Array(rows)
    .fill(`(${TURN_COLUMNS.map(() => "?").join(", ")})`)
    .join(", ")}`;
const SQLITE_INSERT_ONE = sqliteInsert(1);
const SQLITE_INSERT_BATCH = sqliteInsert(SQLITE_BATCH);

/** Writes turns on SQLite inside the caller's transaction (synchronous, as better-sqlite3 is). */
export interface SqliteTurnWriter {
  /** Queues a turn; a full batch is written at once (its episode must be stored already: the foreign key). */
  add(episodeId: string, turn: TurnInput): void;
  /** Writes what is queued. A unique violation (a turn index stored twice) throws SQLITE_CONSTRAINT_UNIQUE. */
  flush(): void;
}

export function sqliteTurnWriter(db: Database.Database, now: number): SqliteTurnWriter {
  const pending: unknown[] = [];
  let rows = 0;
  const n = TURN_COLUMNS.length;
  return {
    add(episodeId, turn) {
      pushTurnRow(pending, episodeId, turn, now, SQLITE_CODEC);
      if (++rows < SQLITE_BATCH) return;
      cachedStatement(db, SQLITE_INSERT_BATCH).run(pending);
      pending.length = 0;
      rows = 0;
    },
    flush() {
      const one = cachedStatement(db, SQLITE_INSERT_ONE);
      for (let r = 0; r < rows; r++) one.run(pending.slice(r * n, (r + 1) * n));
      pending.length = 0;
      rows = 0;
    },
  };
}

/** The PostgreSQL type of each Turn column (the init migration's), for unnest's arrays. */
const PG_TURN_TYPES: Record<TurnColumn, string> = {
  episodeId: "TEXT",
  index: "INTEGER",
  actor: "TEXT",
  action: "TEXT",
  observation: "TEXT",
  ok: "BOOLEAN",
  reward: "DOUBLE PRECISION",
  rawReply: "TEXT",
  thought: "TEXT",
  tokensIn: "INTEGER",
  tokensOut: "INTEGER",
  durationMs: "INTEGER",
  latencyMs: "INTEGER",
  costUsd: "DOUBLE PRECISION",
  source: "TEXT",
  timedOut: "BOOLEAN",
  aborted: "BOOLEAN",
  startedAt: "TIMESTAMP(3)",
  createdAt: "TIMESTAMP(3)",
};
/** Rows per INSERT on PostgreSQL (its parameters are one array per column, so only memory bounds it). */
const PG_BATCH = 5000;
const PG_INSERT = `INSERT INTO "Turn" (${TURN_COLUMNS.map((c) => `"${c}"`).join(", ")}) SELECT * FROM unnest(${TURN_COLUMNS.map((c) => `CAST(? AS ${PG_TURN_TYPES[c]}[])`).join(", ")})`;

/** Writes turns on PostgreSQL inside the caller's transaction. */
export interface PgTurnWriter {
  /** Queues a turn (its episode must be stored before flush: the foreign key). */
  add(episodeId: string, turn: TurnInput): void;
  /** Writes what is queued, PG_BATCH rows a statement. A unique violation throws with code 23505. */
  flush(): Promise<void>;
}

export function pgTurnWriter(sql: Sql, now: number): PgTurnWriter {
  const codec = pgCodec(sql);
  const createdAt = codec.time(now);
  const n = TURN_COLUMNS.length;
  let pending: unknown[] = [];
  return {
    add(episodeId, turn) {
      pushTurnRow(pending, episodeId, turn, createdAt, codec);
    },
    async flush() {
      const all = pending;
      pending = [];
      const rows = all.length / n;
      for (let from = 0; from < rows; from += PG_BATCH) {
        const to = Math.min(rows, from + PG_BATCH);
        // One array per column (unnest): a handful of parameters however many rows.
        const columns = TURN_COLUMNS.map((_, k) => {
          const col: unknown[] = [];
          for (let r = from; r < to; r++) col.push(pgText(all[r * n + k]));
          return col;
        });
        await sql.run(PG_INSERT, columns);
      }
    },
  };
}
