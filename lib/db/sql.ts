import "server-only";
import type Database from "better-sqlite3";
import type pg from "pg";
import { config, redactStoreUrl } from "@/lib/config";
import { StorageError } from "@/lib/errors";
import { POSTGRES, SQLITE, type Dialect } from "./dialect";
import { withWriteLock } from "./lock";
import { applyPgMigrations, openPgPool, pgConnectError, pgConnection } from "./postgres";
import { closeRawDb, getRawDb } from "./sqlite";
import { toStorageError } from "./storage-error";

/** Parameters of a statement: named (`@name` in the SQL) or positional (`?`). */
export type Params = Record<string, unknown> | readonly unknown[];

/** How a statement is run. */
export interface RunOptions {
  /**
   * PostgreSQL: keep the statement prepared although it has parameters, because its plan is the
   * same whatever their values (the server moves it to one generic plan after five runs, and
   * stops planning it). Not for a filter's values: their plan depends on them (see preparedName).
   * SQLite keeps every statement prepared anyway.
   */
  onePlan?: boolean;
}

/**
 * The store's raw SQL, the same on both engines: statements are written once with `@name` or `?`
 * placeholders over the tables of schema.prisma (engine differences come from `dialect`), and rows
 * come back alike: numbers, booleans as 1/0, times as Unix milliseconds.
 */
export interface Sql {
  readonly dialect: Dialect;
  all<T = Record<string, unknown>>(sql: string, params?: Params, options?: RunOptions): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  /** Runs a write; resolves to the number of rows changed. */
  run(sql: string, params?: Params): Promise<number>;
}

type Db = Pick<Database.Database, "prepare">;
const statementCache = new WeakMap<Db, Map<string, Database.Statement>>();
/** A prepared statement per SQL text and SQLite connection (list queries repeat a few shapes). */
export function cachedStatement(db: Db, sql: string): Database.Statement {
  let m = statementCache.get(db);
  if (!m) statementCache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) {
    s = db.prepare(sql);
    if (m.size > 200) m.clear();
    m.set(sql, s);
  }
  return s;
}

const args = (params?: Params): unknown[] => (params === undefined ? [] : Array.isArray(params) ? [params] : [params]);

/** A Sql over one better-sqlite3 connection (synchronous underneath). */
export function sqliteSql(db: Database.Database): Sql {
  return {
    dialect: SQLITE,
    all: async <T>(sql: string, params?: Params) => cachedStatement(db, sql).all(...args(params)) as T[],
    get: async <T>(sql: string, params?: Params) => cachedStatement(db, sql).get(...args(params)) as T | undefined,
    run: async (sql: string, params?: Params) => cachedStatement(db, sql).run(...args(params)).changes,
  };
}

const converted = new Map<string, { text: string; names: string[] | null }>();
/**
 * `@name` and `?` placeholders → PostgreSQL's `$n` (outside quotes; `@@` is the text-search
 * operator and left alone). Cached per SQL text.
 */
function toPgPlaceholders(sql: string): { text: string; names: string[] | null } {
  let hit = converted.get(sql);
  if (hit) return hit;
  const names: string[] = [];
  let positional = 0;
  let out = "";
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const j = end < 0 ? sql.length : end;
      out += sql.slice(i, j + 1);
      i = j;
    } else if (c === "?") {
      out += `$${++positional}`;
    } else if (c === "@" && sql[i + 1] !== "@" && sql[i - 1] !== "@" && /[A-Za-z_]/.test(sql[i + 1] ?? "")) {
      const name = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1))![0];
      let k = names.indexOf(name);
      if (k < 0) k = names.push(name) - 1;
      out += `$${k + 1}`;
      i += name.length;
    } else out += c;
  }
  if (names.length && positional) throw new Error(`sql: mixed @name and ? placeholders in ${sql.slice(0, 80)}`);
  hit = { text: out, names: names.length ? names : null };
  if (converted.size > 500) converted.clear();
  converted.set(sql, hit);
  return hit;
}

/**
 * PostgreSQL's text cannot hold U+0000, which logs do contain (a binary file cat'ed in bash):
 * it is stored as U+2400 (␀, the symbol for NUL). The one way the engines' stored text differs.
 */
export function pgText(v: unknown): unknown {
  return typeof v === "string" && v.includes("\0") ? v.replaceAll("\0", "\u2400") : v;
}

function pgValues(names: string[] | null, params?: Params): unknown[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return (params as unknown[]).map(pgText);
  const p = params as Record<string, unknown>;
  return (names ?? []).map((n) => {
    if (!(n in p)) throw new Error(`sql: missing parameter @${n}`);
    return pgText(p[n]);
  });
}

/**
 * Reads without parameters kept as prepared statements on PostgreSQL, by text: each connection
 * plans such a text once, on first use. Planning a list statement over Episode's twenty-odd indexes
 * took 0.5-2 ms, longer than running it (an unfiltered page's count: 1.7 ms planned, 1.5 ms run).
 * Not statements with parameters: the server would move them to one generic plan after five runs,
 * and a filter's plan depends on its value (model=gpt-4 + policy=react went from 35 to 45-80 ms);
 * unless the caller says their plan does not (RunOptions.onePlan).
 * Bounded: a connection keeps its prepared statements until it closes, so past this many texts the
 * rest run unprepared.
 */
const PREPARED_READS_MAX = 256;
const preparedReads = new Map<string, string>();

function preparedName(text: string, values: unknown[], onePlan = false): string | undefined {
  if (values.length && !onePlan) return undefined;
  let name = preparedReads.get(text);
  if (name === undefined && preparedReads.size < PREPARED_READS_MAX && /^\s*SELECT\b/i.test(text)) {
    name = `ic_read_${preparedReads.size}`;
    preparedReads.set(text, name);
  }
  return name;
}

/** A Sql over a pg pool or one client of it (a transaction). */
export function pgSql(q: Pick<pg.Pool, "query"> | pg.PoolClient): Sql {
  const query = async (sql: string, params?: Params, options?: RunOptions) => {
    const { text, names } = toPgPlaceholders(sql);
    const values = pgValues(names, params);
    const name = preparedName(text, values, options?.onePlan);
    return name === undefined ? q.query(text, values) : q.query({ name, text, values });
  };
  return {
    dialect: POSTGRES,
    all: async <T>(sql: string, params?: Params, options?: RunOptions) => (await query(sql, params, options)).rows as T[],
    get: async <T>(sql: string, params?: Params) => (await query(sql, params)).rows[0] as T | undefined,
    run: async (sql: string, params?: Params) => (await query(sql, params)).rowCount ?? 0,
  };
}

type PgHolder = { pool?: Promise<pg.Pool>; url?: string };
const pgHolder: PgHolder = ((globalThis as Record<string, unknown>).__icStudioPg ??= {}) as PgHolder;

async function connectPg(url: string): Promise<pg.Pool> {
  const pool = await openPgPool(url);
  try {
    const client = await pool.connect().catch((err) => {
      throw pgConnectError(url, err);
    });
    client.release();
    await applyPgMigrations(pool, config().pgMigrationsDir, pgConnection(url).schema);
    return pool;
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
}

/**
 * The process's PostgreSQL pool for IC_DB's URL: the first call checks the server answers
 * (a StorageError naming the store otherwise) and applies pending migrations.
 */
export function getPgPool(url: string): Promise<pg.Pool> {
  if (!pgHolder.pool || pgHolder.url !== url) {
    const old = pgHolder.pool;
    if (old) void old.then((p) => p.end()).catch(() => {});
    pgHolder.url = url;
    pgHolder.pool = connectPg(url).catch((err) => {
      pgHolder.pool = undefined;
      throw err;
    });
  }
  return pgHolder.pool;
}

/** Closes the raw connections of both engines (tests, shutdown). */
export async function closeSql(): Promise<void> {
  closeRawDb();
  const p = pgHolder.pool;
  pgHolder.pool = undefined;
  pgHolder.url = undefined;
  if (p) await (await p.catch(() => undefined))?.end().catch(() => {});
}

/** The store IC_DB names, in words for messages (a file path, or the URL with its password hidden). */
export function storeName(): string {
  const s = config().store;
  return s.kind === "sqlite" ? s.file : redactStoreUrl(s.url);
}

/**
 * Runs a unit of raw SQL on the store IC_DB names (SQLite file or PostgreSQL), mapping storage
 * failures (read-only file, full disk, lost server) to StorageError.
 */
export async function withSql<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  const s = config().store;
  try {
    if (s.kind === "sqlite") return await fn(sqliteSql(getRawDb()));
    return await fn(pgSql(await getPgPool(s.url)));
  } catch (err) {
    throw toStorageError(err, storeName());
  }
}

/**
 * A write transaction on PostgreSQL (one pooled client, BEGIN ... COMMIT, ROLLBACK on a throw).
 * SQLite's transactions stay synchronous on its raw connection (see lib/db/lock.ts), so callers
 * branch on the engine for multi-statement writes.
 */
export async function pgTransaction<T>(url: string, fn: (sql: Sql, client: pg.PoolClient) => Promise<T>): Promise<T> {
  const pool = await getPgPool(url);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(pgSql(client), client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A write transaction of a few statements that read what they write (an annotation and the tags
 * it changes), on the store IC_DB names, under the process's write lock (lib/db/lock.ts): on
 * SQLite, BEGIN IMMEDIATE ... COMMIT on the raw connection (no other writer of this process runs
 * between its statements: they all take the lock); on PostgreSQL, pgTransaction. ROLLBACK on a throw.
 */
export async function withSqlTransaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  const s = config().store;
  return withWriteLock(async () => {
    try {
      if (s.kind === "postgresql") return await pgTransaction(s.url, fn);
      const db = getRawDb();
      db.exec("BEGIN IMMEDIATE");
      try {
        const out = await fn(sqliteSql(db));
        db.exec("COMMIT");
        return out;
      } catch (err) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw err;
      }
    } catch (err) {
      throw toStorageError(err, storeName());
    }
  });
}

/** Thrown where a feature is asked of an engine that lacks it. */
export function unsupported(what: string): StorageError {
  return new StorageError(`${what} is not available on this store (${storeName()})`);
}
