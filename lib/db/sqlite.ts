import "server-only";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { config } from "@/lib/config";
import { StorageError } from "@/lib/errors";
import { applyMigrations } from "./migrate";
import { toStorageError } from "./storage-error";

/** How long a writer waits for another connection's lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 5000;

/** The database file: IC_DB, else ./var/studio.db under the working directory. Throws for a PostgreSQL store. */
export function dbPath(): string {
  const s = config().store;
  if (s.kind !== "sqlite") throw new StorageError("the store is PostgreSQL (IC_DB): there is no SQLite file to open");
  return s.file;
}

/**
 * Opens a SQLite connection with the Studio's settings (WAL, busy timeout, foreign keys) and
 * applies pending migrations. Storage failures become StorageError.
 */
export function openSqlite(file = dbPath(), { migrate = true } = {}): Database.Database {
  try {
    if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      if (file !== ":memory:" && db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
      db.pragma("foreign_keys = ON");
      db.pragma("synchronous = NORMAL");
      // Bulk import touches many index pages (17 on Episode, the FTS b-trees); a bigger page
      // cache than the 2 MB default keeps them in memory across a file's transaction.
      db.pragma("cache_size = -65536");
      db.pragma("temp_store = MEMORY");
      if (migrate) applyMigrations(db);
      return db;
    } catch (err) {
      db.close();
      throw err;
    }
  } catch (err) {
    throw toStorageError(err, file);
  }
}

type Holder = { raw?: Database.Database; rawPath?: string };
const holder: Holder = ((globalThis as Record<string, unknown>).__icStudioSqlite ??= {}) as Holder;

/**
 * The process's raw connection, for the few queries that need prepared statements for speed
 * (bulk import, statistics, the episode list with full-text search). Only lib/db uses it.
 */
export function getRawDb(): Database.Database {
  const file = dbPath();
  if (holder.raw && holder.rawPath === file && holder.raw.open) return holder.raw;
  holder.raw?.close();
  holder.raw = openSqlite(file);
  holder.rawPath = file;
  return holder.raw;
}

/** Closes the raw connection (tests, shutdown). */
export function closeRawDb(): void {
  holder.raw?.close();
  holder.raw = undefined;
  holder.rawPath = undefined;
}

/** Runs a synchronous unit of work on the raw connection, mapping storage failures. */
export function withRaw<T>(fn: (db: Database.Database) => T): T {
  const db = getRawDb();
  try {
    return fn(db);
  } catch (err) {
    throw toStorageError(err, holder.rawPath ?? dbPath());
  }
}
