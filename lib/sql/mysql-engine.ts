import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import mysql, { type Connection, type FieldPacket, type Pool, type PoolConnection, type TypeCast } from "mysql2/promise";
import { intercodeDataDir, sharedIntercodeDir } from "@/lib/datasets/paths";
import { BadInputError, NotFoundError, SandboxUnavailableError } from "@/lib/errors";
import { ACTION_TIMEOUT_MS } from "@/lib/sandbox/limits";
import { splitStatements } from "./lexer";
import { ensureMysqlDatabase } from "./load-mysql";
import { TIMEOUT_MESSAGE } from "./sqlite-engine";
import { MAX_RESULT_ROWS, type QueryOptions, type QueryOutcome, type SqlCell, type SqlEngine, type SqlResult, type SqlSession } from "./types";

/**
 * The MySQL-compatible engine (MariaDB or MySQL through mysql2), for the fidelity of InterCode's
 * own setup. Copy on write: a session starts on the task's database through a server user that
 * may only SELECT from that one database (so reading costs nothing and nothing can be changed).
 * The first statement the server refuses for lack of a write privilege on that database makes
 * the session copy it into a scratch database (CREATE TABLE ... LIKE + INSERT ... SELECT) with a
 * user of its own whose only grants are on that copy, and the statement runs again there. An
 * episode can thus change or drop anything it sees without touching another episode or the
 * source. Statements are capped with max_statement_time, backed by KILL QUERY from the admin
 * connection. Scratch databases and users are dropped on close.
 */

const SCRATCH_PREFIX = "ics_";
/** Scratch databases older than this are left over from a crashed process and are dropped. */
const STALE_SCRATCH_MS = 6 * 60 * 60 * 1000;

/** MySQL 8's default sql_mode (InterCode's server); ONLY_FULL_GROUP_BY is optional, see below. */
const MYSQL8_SQL_MODE = "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

export interface MysqlEngineOptions {
  /** mysql://user:password@host:port (a user that may create databases and users). */
  url: string;
  dumpPath?: string;
  demoDirs?: string[];
  timeoutMs?: number;
  /**
   * Add ONLY_FULL_GROUP_BY to sql_mode, as MySQL 8 had. MariaDB's version of the check does not
   * know functional dependencies, so it rejects some queries MySQL 8 accepted (default false).
   */
  onlyFullGroupBy?: boolean;
}

/** Creates the MySQL-compatible engine. */
export function createMysqlEngine(options: MysqlEngineOptions): MysqlEngine {
  return new MysqlEngine(options);
}

function defaultDump(): string | undefined {
  const rel = path.join("sql", "spider", "ic_spider_dbs.sql");
  return [path.join(intercodeDataDir(), rel), path.join(sharedIntercodeDir(), rel)].find((p) => existsSync(p));
}

/** Values as mysql-connector gave them to InterCode: ints, floats, Decimal, datetime, str. */
const typeCast: TypeCast = (field, next) => {
  switch (field.type) {
    case "TINY":
    case "SHORT":
    case "LONG":
    case "LONGLONG":
    case "INT24":
    case "YEAR": {
      const s = field.string();
      return s === null ? null : BigInt(s);
    }
    case "BIT": {
      const b = field.buffer();
      return b === null ? null : BigInt("0x" + (b.toString("hex") || "0"));
    }
    case "FLOAT":
    case "DOUBLE": {
      const s = field.string();
      return s === null ? null : { py: "float", value: Number(s) };
    }
    case "DECIMAL":
    case "NEWDECIMAL": {
      const s = field.string();
      return s === null ? null : { py: "decimal", text: s };
    }
    case "DATETIME":
    case "DATETIME2":
    case "TIMESTAMP":
    case "TIMESTAMP2":
    case "DATE":
    case "NEWDATE": {
      const s = field.string();
      if (s === null) return null;
      const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?$/.exec(s);
      if (!m || m[1] === "0000") return s;
      if (field.type === "DATE" || field.type === "NEWDATE") return { py: "date", year: +m[1], month: +m[2], day: +m[3] };
      return {
        py: "datetime",
        year: +m[1],
        month: +m[2],
        day: +m[3],
        hour: +(m[4] ?? 0),
        minute: +(m[5] ?? 0),
        second: +(m[6] ?? 0),
        microsecond: m[7] ? +m[7].padEnd(6, "0") : 0,
      };
    }
    case "TIME":
    case "TIME2": {
      const s = field.string();
      if (s === null) return null;
      const m = /^(-)?(\d+):(\d{2}):(\d{2})$/.exec(s);
      if (!m) return s;
      const secs = (+m[2] * 3600 + +m[3] * 60 + +m[4]) * (m[1] ? -1 : 1);
      const days = Math.floor(secs / 86400);
      return { py: "timedelta", days, seconds: secs - days * 86400 };
    }
    case "GEOMETRY":
      return next();
    default:
      return field.string();
  }
};

function parseUrl(url: string): { host: string; port: number; user: string; password: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BadInputError("not a URL (expected mysql://user:password@host:port)", "IC_SQL_URL");
  }
  if (u.protocol !== "mysql:") throw new BadInputError("expected a mysql:// URL", "IC_SQL_URL");
  return { host: u.hostname || "127.0.0.1", port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
}

/**
 * The admin connections: a small pool that closes itself after a moment without work, so that a
 * command-line run is not kept alive by idle sockets, and opens again on the next use.
 */
class AdminPool {
  private pool: Pool | null = null;
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly config: mysql.PoolOptions) {}

  private get(): Pool {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pool ??= mysql.createPool(this.config);
    return this.pool;
  }

  private done(): void {
    if (--this.inFlight > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.end(), 2000);
    this.timer.unref();
  }

  async query(sql: string, params?: unknown[]): Promise<[unknown, FieldPacket[]]> {
    const pool = this.get();
    this.inFlight++;
    try {
      return (await pool.query(sql, params)) as [unknown, FieldPacket[]];
    } finally {
      this.done();
    }
  }

  async withConnection<T>(fn: (conn: PoolConnection) => Promise<T>): Promise<T> {
    const pool = this.get();
    this.inFlight++;
    try {
      const conn = await pool.getConnection();
      try {
        return await fn(conn);
      } finally {
        conn.release();
      }
    } finally {
      this.done();
    }
  }

  async end(): Promise<void> {
    if (this.inFlight > 0) return;
    const p = this.pool;
    this.pool = null;
    await p?.end().catch(() => undefined);
  }
}

function scratchName(): string {
  return `${SCRATCH_PREFIX}${Date.now().toString(36)}_${randomBytes(5).toString("hex")}`;
}

export class MysqlEngine implements SqlEngine {
  readonly kind = "mysql" as const;
  readonly id: string;
  readonly admin: AdminPool;
  private readonly server: ReturnType<typeof parseUrl>;
  private readonly loaded = new Map<string, Promise<string[]>>();
  readonly timeoutMs: number;
  private cleaned: Promise<void> | null = null;

  constructor(private readonly options: MysqlEngineOptions) {
    this.server = parseUrl(options.url);
    this.id = `mysql:${this.server.host}:${this.server.port}${options.onlyFullGroupBy ? ":ofgb" : ""}`;
    this.timeoutMs = options.timeoutMs ?? ACTION_TIMEOUT_MS;
    this.admin = new AdminPool({ ...this.server, connectionLimit: 4, multipleStatements: false, charset: "utf8mb4_general_ci" });
  }

  get sqlMode(): string {
    return this.options.onlyFullGroupBy ? `ONLY_FULL_GROUP_BY,${MYSQL8_SQL_MODE}` : MYSQL8_SQL_MODE;
  }

  /** Drops scratch databases and users left behind by crashed processes (once per engine). */
  private cleanup(): Promise<void> {
    this.cleaned ??= (async () => {
      const [rows] = await this.admin.query("SELECT SCHEMA_NAME AS n FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'ics\\_%'");
      for (const { n } of rows as { n: string }[]) {
        const born = parseInt(n.slice(SCRATCH_PREFIX.length).split("_")[0], 36);
        if (Number.isFinite(born) && Date.now() - born > STALE_SCRATCH_MS) {
          await this.admin.query(`DROP DATABASE IF EXISTS \`${n}\``);
          await this.admin.query(`DROP USER IF EXISTS '${n}'@'%'`);
        }
      }
      const [users] = await this.admin.query("SELECT User AS u FROM mysql.user WHERE User LIKE 'ics\\_%'");
      for (const { u } of users as { u: string }[]) {
        const born = parseInt(u.slice(SCRATCH_PREFIX.length).split("_")[0], 36);
        if (Number.isFinite(born) && Date.now() - born > STALE_SCRATCH_MS) await this.admin.query(`DROP USER IF EXISTS '${u}'@'%'`);
      }
    })().catch(() => undefined);
    return this.cleaned;
  }

  /** The tables of `db`, loading it from its source first when needed. */
  private tablesOf(db: string): Promise<string[]> {
    let hit = this.loaded.get(db);
    if (!hit) {
      hit = (async () => {
        return this.admin.withConnection(async (conn) => {
          const known = await ensureMysqlDatabase(conn as unknown as Connection, db, {
            dumpPath: this.options.dumpPath ?? defaultDump(),
            demoDirs: this.options.demoDirs,
          });
          if (!known) throw new NotFoundError(`SQL database ${db}`, { db });
          const [rows] = await conn.query(
            "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
            [db.toLowerCase()],
          );
          return (rows as { t: string }[]).map((r) => r.t);
        });
      })();
      hit.catch(() => this.loaded.delete(db));
      this.loaded.set(db, hit);
    }
    return hit;
  }

  /** Loads `db` if needed without opening a session. */
  async prepare(db: string): Promise<void> {
    await this.tablesOf(db);
  }

  async open(db: string): Promise<SqlSession> {
    if (!/^[A-Za-z0-9_]{1,64}$/.test(db)) throw new BadInputError(`not a database name: ${JSON.stringify(db)}`, "db");
    let tables: string[];
    try {
      await this.cleanup();
      tables = await this.tablesOf(db);
    } catch (err) {
      if (err instanceof NotFoundError || err instanceof BadInputError) throw err;
      throw new SandboxUnavailableError(
        `the MySQL server at ${this.server.host}:${this.server.port} cannot be used (${(err as Error).message}); start one with scripts/start-mariadb.sh or unset IC_SQL_URL`,
      );
    }
    const reader = await this.readerOf(db);
    const session = new MysqlSession(this, db, tables, reader);
    try {
      await session.connect();
    } catch (err) {
      await session.close();
      throw err;
    }
    return session;
  }

  private readonly readers = new Map<string, Promise<{ name: string; password: string }>>();
  private readonly drops = new Set<Promise<void>>();
  private readonly userPrefix = `${SCRATCH_PREFIX}${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;

  /** This engine's read-only user for `db`: SELECT on that database and nothing else. */
  private readerOf(db: string): Promise<{ name: string; password: string }> {
    let hit = this.readers.get(db);
    if (!hit) {
      hit = (async () => {
        const name = `${this.userPrefix}r${this.readers.size}`;
        const password = randomBytes(12).toString("hex");
        await this.admin.query(`CREATE USER '${name}'@'%' IDENTIFIED BY '${password}'`);
        await this.admin.query(`GRANT SELECT, SHOW VIEW ON \`${db.toLowerCase()}\`.* TO '${name}'@'%'`);
        return { name, password };
      })();
      hit.catch(() => this.readers.delete(db));
      this.readers.set(db, hit);
    }
    return hit;
  }

  /** A scratch copy of `db` and a user that may use only it. */
  async makeScratch(db: string, tables: string[]): Promise<{ name: string; password: string }> {
    const scratch = scratchName();
    const password = randomBytes(12).toString("hex");
    const src = db.toLowerCase();
    try {
      await this.admin.withConnection(async (conn) => {
        await conn.query(`CREATE DATABASE \`${scratch}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
        for (const t of tables) {
          await conn.query(`CREATE TABLE \`${scratch}\`.\`${t}\` LIKE \`${src}\`.\`${t}\``);
          await conn.query(`INSERT INTO \`${scratch}\`.\`${t}\` SELECT * FROM \`${src}\`.\`${t}\``);
        }
        await conn.query(`CREATE USER '${scratch}'@'%' IDENTIFIED BY '${password}'`);
        await conn.query(`GRANT ALL PRIVILEGES ON \`${scratch}\`.* TO '${scratch}'@'%'`);
      });
      return { name: scratch, password };
    } catch (err) {
      await dropScratch(this.admin, scratch);
      throw err;
    }
  }

  /** Drops a scratch copy in the background (close() waits for all of them). */
  dropLater(scratch: string): void {
    const p = dropScratch(this.admin, scratch).finally(() => this.drops.delete(p));
    this.drops.add(p);
  }

  connectAs(user: string, password: string, database: string): Promise<Connection> {
    return mysql.createConnection({
      host: this.server.host,
      port: this.server.port,
      user,
      password,
      database,
      charset: "utf8mb4_general_ci",
      multipleStatements: false,
      rowsAsArray: true,
      typeCast,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.drops]);
    for (const r of [...this.readers.values()]) {
      const u = await r.catch(() => null);
      if (u) await this.admin.query(`DROP USER IF EXISTS '${u.name}'@'%'`).catch(() => undefined);
    }
    this.readers.clear();
    await this.admin.end();
  }
}

async function dropScratch(admin: AdminPool, scratch: string): Promise<void> {
  await admin.query(`DROP DATABASE IF EXISTS \`${scratch}\``).catch(() => undefined);
  await admin.query(`DROP USER IF EXISTS '${scratch}'@'%'`).catch(() => undefined);
}

/** Server errors that mean "this user may not write here": the session then copies its database. */
const WRITE_DENIED = new Set([1142, 1143, 1044, 1227, 1370]);

class MysqlSession implements SqlSession {
  private conn: Connection | null = null;
  private closed = false;
  private scratch: { name: string; password: string } | null = null;

  constructor(
    private readonly engine: MysqlEngine,
    readonly db: string,
    private readonly tables: string[],
    private readonly reader: { name: string; password: string },
  ) {}

  async connect(): Promise<void> {
    this.conn = this.scratch
      ? await this.engine.connectAs(this.scratch.name, this.scratch.password, this.scratch.name)
      : await this.engine.connectAs(this.reader.name, this.reader.password, this.db.toLowerCase());
    await this.conn.query(`SET SESSION sql_mode = '${this.engine.sqlMode}'`);
    // MariaDB's in-memory temporary tables hand back tied rows (GROUP BY ... ORDER BY count(*)
    // LIMIT 1) in an order that changes from run to run; on-disk ones are stable, so a query
    // gives the same answer every time, as gold checks and rewards need.
    await this.conn.query("SET SESSION tmp_memory_table_size = 0");
  }

  /** Copies the database into a scratch database of this session's own and moves there. */
  private async materialize(): Promise<void> {
    this.scratch = await this.engine.makeScratch(this.db, this.tables);
    const old = this.conn;
    this.conn = null;
    old?.destroy();
    await this.connect();
  }

  /** Server messages name the scratch database and MariaDB; the agent sees the task's database and MySQL, as InterCode showed. */
  private message(err: unknown): string {
    const e = err as { sqlMessage?: string; message?: string; errno?: number };
    let m = e.sqlMessage ?? e.message ?? String(err);
    if (this.scratch) m = m.split(this.scratch.name).join(this.db);
    m = m.split(this.reader.name).join("user");
    m = m.replace("corresponds to your MariaDB server version", "corresponds to your MySQL server version");
    // MariaDB 10.11 names the clause ('SELECT'); MySQL 8 said 'field list'.
    m = m.replace(/^(Unknown column '.*' in )'SELECT'$/s, "$1'field list'");
    if (e.errno === 1969) m = TIMEOUT_MESSAGE;
    return m;
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryOutcome> {
    if (this.closed) return { ok: false, error: "the session is closed" };
    const stmts = splitStatements(sql);
    if (stmts.length === 0) return { ok: false, error: "Query was empty" };
    const timeoutMs = options.timeoutMs ?? this.engine.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    let last: SqlResult = { columns: [], rows: [], truncated: false, resultSet: false };
    for (const st of stmts) {
      let r = await this.runOne(st.text, deadline, options.signal);
      if (!r.ok && r.denied && !this.scratch) {
        await this.materialize();
        r = await this.runOne(st.text, deadline, options.signal);
      }
      if (!r.ok) return r;
      last = r.result;
    }
    return { ok: true, result: last };
  }

  private async runOne(sql: string, deadline: number, signal?: AbortSignal): Promise<QueryOutcome & { denied?: boolean }> {
    if (!this.conn) await this.connect();
    const conn = this.conn!;
    if (signal?.aborted) return { ok: false, error: "Query execution was interrupted", aborted: true };
    const remaining = Math.max(1, deadline - Date.now());
    let killed: "timeout" | "abort" | null = null;
    const kill = async (why: "timeout" | "abort") => {
      killed = why;
      await this.engine.admin.query(`KILL QUERY ${conn.threadId}`).catch(() => undefined);
    };
    // The server stops the statement itself at max_statement_time; KILL QUERY is the backstop.
    const timer = setTimeout(() => void kill("timeout"), remaining + 1000);
    const onAbort = () => void kill("abort");
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const [rows, fields] = await conn.query({ sql: `SET STATEMENT max_statement_time = ${(remaining / 1000).toFixed(3)} FOR ${sql}`, rowsAsArray: true });
      if (!Array.isArray(rows)) {
        return {
          ok: true,
          result: { columns: [], rows: [], truncated: false, resultSet: false, changes: (rows as { affectedRows?: number }).affectedRows ?? 0 },
        };
      }
      let list = rows as unknown as SqlCell[][];
      // A CALL returns several result sets: keep the first.
      if (list.length > 0 && Array.isArray(list[0]) && Array.isArray((list[0] as unknown[])[0])) list = list[0] as unknown as SqlCell[][];
      const truncated = list.length > MAX_RESULT_ROWS;
      if (truncated) list = list.slice(0, MAX_RESULT_ROWS);
      const columns = ((fields ?? []) as FieldPacket[]).map((f) => f.name);
      if (/^\s*(DESC|DESCRIBE|EXPLAIN|SHOW\s+(FULL\s+)?(COLUMNS|FIELDS))\b/i.test(sql) && columns[0] === "Field") {
        // MySQL 8 no longer shows integer display widths (int(11) → int).
        list = list.map((r) => r.map((v, i) => (i === 1 && typeof v === "string" ? v.replace(/^(tinyint|smallint|mediumint|int|bigint)\(\d+\)/, "$1") : v)));
      }
      return { ok: true, result: { columns, rows: list, truncated, resultSet: true } };
    } catch (err) {
      const e = err as { errno?: number; fatal?: boolean };
      if (e.fatal) {
        this.conn = null;
        await conn.end().catch(() => undefined);
      }
      if (killed === "abort") return { ok: false, error: "Query execution was interrupted", aborted: true };
      if (killed === "timeout" || e.errno === 1969) return { ok: false, error: TIMEOUT_MESSAGE, timedOut: true };
      const raw = (err as { sqlMessage?: string }).sqlMessage ?? "";
      const src = this.db.toLowerCase();
      const denied = !this.scratch && WRITE_DENIED.has(e.errno ?? 0) && (raw.includes(`\`${src}\``) || raw.includes(`'${src}'`) || e.errno === 1227);
      return { ok: false, error: this.message(err), ...(denied ? { denied: true } : {}) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const conn = this.conn;
    this.conn = null;
    if (conn) {
      await this.engine.admin.query(`KILL CONNECTION ${conn.threadId}`).catch(() => undefined);
      conn.destroy();
    }
    if (this.scratch) this.engine.dropLater(this.scratch.name);
  }
}
