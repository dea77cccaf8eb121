import "server-only";
import type Database from "better-sqlite3";
import { config } from "@/lib/config";
import { withWriteLock } from "./lock";
import { rowParser } from "./rows";
import { cachedStatement, pgTransaction, withSql, type Sql } from "./sql";
import { withRaw } from "./sqlite";

/** One message of an episode's conversation with its model, as stored (once). */
export interface TranscriptMessageInput {
  /** Position in the conversation, 0-based (0 is the system prompt). */
  seq: number;
  role: "system" | "user" | "assistant";
  content: string;
  /** On a reply: earlier turns left out of the conversation it answered. */
  droppedTurns?: number | null;
}

export interface TranscriptMessage extends TranscriptMessageInput {
  /** The turn that added it. */
  turnIndex: number;
  droppedTurns: number | null;
}

const INSERT_SQL = `INSERT INTO "TranscriptMessage" ("episodeId", "seq", "turnIndex", "role", "content", "droppedTurns") VALUES (?, ?, ?, ?, ?, ?)`;

/**
 * Writes messages on a connection inside the caller's transaction (a turn and the messages it
 * added go in together: appendTurn, the bulk importer).
 */
export function insertTranscriptMessagesRaw(
  db: Database.Database,
  episodeId: string,
  messages: readonly (TranscriptMessageInput & { turnIndex: number })[],
): void {
  const stmt = cachedStatement(db, INSERT_SQL);
  for (const m of messages) stmt.run(episodeId, m.seq, m.turnIndex, m.role, m.content, m.droppedTurns ?? null);
}

/** The same on any engine, inside the caller's transaction (PostgreSQL's appendTurn). */
export async function insertTranscriptMessages(
  sql: Sql,
  episodeId: string,
  messages: readonly (TranscriptMessageInput & { turnIndex: number })[],
): Promise<void> {
  for (const m of messages) await sql.run(INSERT_SQL, [episodeId, m.seq, m.turnIndex, m.role, m.content, m.droppedTurns ?? null]);
}

/**
 * Stores messages that no turn claimed (the prompt a failing provider call sent, a reply that
 * skipped the task), marked with the index the next turn would have had.
 */
export async function appendTranscriptMessages({
  episodeId,
  turnIndex,
  messages,
}: {
  episodeId: string;
  turnIndex: number;
  messages: readonly TranscriptMessageInput[];
}): Promise<void> {
  if (messages.length === 0) return;
  const rows = messages.map((m) => ({ ...m, turnIndex }));
  const store = config().store;
  if (store.kind === "postgresql") return pgTransaction(store.url, (sql) => insertTranscriptMessages(sql, episodeId, rows));
  await withWriteLock(() => withRaw((db) => db.transaction(() => insertTranscriptMessagesRaw(db, episodeId, rows)).immediate()));
}

const messageRow = rowParser("TranscriptMessage", ["seq", "turnIndex", "role", "content", "droppedTurns"]);
const episodeMessageRow = rowParser("TranscriptMessage", ["episodeId", "seq", "turnIndex", "role", "content", "droppedTurns"]);

/** An episode's whole conversation with its model, in order. */
export async function listTranscriptMessagesByEpisode({ episodeId }: { episodeId: string }): Promise<TranscriptMessage[]> {
  return withSql(async (sql) =>
    messageRow.all(
      await sql.all(`SELECT "seq", "turnIndex", "role", "content", "droppedTurns" FROM "TranscriptMessage" WHERE "episodeId" = ? ORDER BY "seq"`, [episodeId]),
    ),
  );
}

/** The conversations of several episodes (export), by episode id, on the caller's connection. */
export async function listTranscriptMessagesByEpisodes(sql: Sql, episodeIds: readonly string[]): Promise<Map<string, TranscriptMessage[]>> {
  const out = new Map<string, TranscriptMessage[]>();
  if (episodeIds.length === 0) return out;
  const rows = episodeMessageRow.all(
    await sql.all(
      `SELECT "episodeId", "seq", "turnIndex", "role", "content", "droppedTurns" FROM "TranscriptMessage" WHERE "episodeId" ${sql.dialect.inList("?")} ORDER BY "episodeId", "seq"`,
      [sql.dialect.listValue(episodeIds)],
    ),
  );
  for (const { episodeId, ...m } of rows) {
    let list = out.get(episodeId);
    if (!list) out.set(episodeId, (list = []));
    list.push(m);
  }
  return out;
}
