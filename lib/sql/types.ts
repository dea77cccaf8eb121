import type { PyValue } from "@/lib/reward/python-repr";

/**
 * The SQL engine contract: an engine opens a session on a fresh copy of a named database; a
 * session runs queries with a time limit and is closed when its episode ends.
 */

/**
 * One value of a result row, typed as Python's MySQL connector handed it to InterCode (see
 * lib/reward/python-repr.ts): `bigint` is an int, `{py: "float"}` a float, `{py: "decimal"}` a
 * Decimal, `{py: "datetime" | "date" | "timedelta"}` the datetime module's values, strings,
 * bytes (`Uint8Array`) and None (`null`).
 */
export type SqlCell = PyValue;

export interface SqlResult {
  columns: string[];
  rows: SqlCell[][];
  /** Rows were dropped at the row/byte cap. */
  truncated: boolean;
  /** False for a statement that returns no result set (INSERT, CREATE ...): InterCode scored those 0. */
  resultSet: boolean;
  /** Rows changed by a statement without a result set. */
  changes?: number;
}

export type QueryOutcome =
  | { ok: true; result: SqlResult }
  | {
      ok: false;
      /** The error as the agent sees it, after "Error executing query: ". */
      error: string;
      timedOut?: boolean;
      aborted?: boolean;
      /** The session's database was restored to the task's initial state (after a kill). */
      reset?: boolean;
    };

export interface QueryOptions {
  /** Wall-time limit; the query is stopped past it. */
  timeoutMs?: number;
  /** Aborting stops the running query. */
  signal?: AbortSignal;
}

/** One episode's private copy of a database. */
export interface SqlSession {
  /** The task's database name (as the dataset names it). */
  readonly db: string;
  /**
   * Runs one action: one or more statements, in order; the result is the last statement's.
   * Never throws for the query's own failure: that is `{ok: false, error}`.
   */
  query(sql: string, options?: QueryOptions): Promise<QueryOutcome>;
  /** Frees the copy; safe to call twice. */
  close(): Promise<void>;
}

export interface SqlEngine {
  readonly kind: "sqlite" | "mysql";
  /** Identifies the engine and its data for caches (e.g. "sqlite:nocase", "mysql:127.0.0.1:3306"). */
  readonly id: string;
  /** Opens a fresh copy of `db`. Throws NotFoundError for an unknown database. */
  open(db: string): Promise<SqlSession>;
  /** Stops workers / connections. */
  close(): Promise<void>;
}

/** Rows kept per query before the rest are dropped (the observation shows at most 64 KiB anyway). */
export const MAX_RESULT_ROWS = 100_000;
/** Approximate bytes of values kept per query. */
export const MAX_RESULT_BYTES = 16 * 1024 * 1024;
