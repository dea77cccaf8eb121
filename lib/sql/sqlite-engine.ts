import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fork, type ChildProcess } from "node:child_process";
import { config } from "@/lib/config";
import { REPO_ROOT } from "@/lib/datasets/paths";
import { SandboxError } from "@/lib/errors";
import { ACTION_TIMEOUT_MS } from "@/lib/sandbox/limits";
import { registerResource, type ResourceHandle } from "@/lib/sandbox/reaper";
import type { CatalogTable } from "./convert-mysql-dump";
import { mysqlStyleError, planForSqlite, type PlannedStatement } from "./mysql-to-sqlite";
import { SqliteSources, type SqliteImage, type SqliteSourceOptions } from "./sqlite-sources";
import {
  MAX_RESULT_BYTES,
  MAX_RESULT_ROWS,
  type QueryOptions,
  type QueryOutcome,
  type SqlCell,
  type SqlEngine,
  type SqlResult,
  type SqlSession,
} from "./types";

/**
 * The embedded SQL engine: SQLite through better-sqlite3. Each session owns a child process
 * holding a private in-memory copy of its database (deserialized from an image in a few
 * milliseconds); a query past its time limit is stopped by killing the process (a query looping
 * inside SQLite never returns to JavaScript, so a worker thread could not be stopped), and the
 * session continues on a fresh copy. Idle processes are kept warm in a small pool.
 *
 * Every process is in the resource registry (lib/sandbox/reaper.ts) with its owner (the pool, or
 * the session using it) and an idle deadline (IC_HELPER_IDLE_MS): one unused that long is killed,
 * warm or not (a session whose process was reaped starts over on a fresh copy, as after a timeout).
 */

/** Message MySQL 8 gives for a statement stopped at max_execution_time. */
export const TIMEOUT_MESSAGE = "Query execution was interrupted, maximum statement execution time exceeded";

function workerPath(): string {
  const candidates = [
    path.join(path.dirname(fileURLToPath(import.meta.url)), "sqlite-child.mjs"),
    path.join(REPO_ROOT, "lib", "sql", "sqlite-child.mjs"),
    path.join(process.cwd(), "lib", "sql", "sqlite-child.mjs"),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new SandboxError(`sqlite child script not found (looked in ${candidates.join(", ")})`);
  return found;
}

interface RawColumn {
  name: string;
  table: string | null;
  column: string | null;
  type: string | null;
}
interface RawResult {
  columns: RawColumn[];
  rows: unknown[][];
  truncated: boolean;
  changes: number;
  reader: boolean;
}
type Reply = { id: number; ok: true; result?: RawResult; ready?: boolean } | { id: number; ok: false; error: string; code?: string };

/** Native memory one session's SQLite may use (PRAGMA hard_heap_limit in its process). */
export const SQLITE_HEAP_BYTES = 512 * 1024 * 1024;

/** One child process and its request/response plumbing. */
class WorkerHandle {
  private readonly child: ChildProcess;
  /** Images the process already holds (a load then sends only the name). */
  readonly images = new Set<string>();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private dead = false;
  readonly ready: Promise<void>;
  /** Its entry in the resource registry (owner, last use, idle deadline). */
  readonly resource: ResourceHandle;

  constructor(file: string, owner: string, idleMs: number) {
    this.child = fork(file, [String(SQLITE_HEAP_BYTES)], {
      execArgv: ["--max-old-space-size=256"],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      env: { PATH: process.env.PATH ?? "" } as unknown as NodeJS.ProcessEnv,
    });
    this.resource = registerResource({ kind: "sqlite-helper", owner, pid: this.child.pid ?? null, idleMs, end: () => this.kill() });
    // Busy until it says it is ready (a slow start on a loaded machine is not idleness).
    this.resource.setBusy(true);
    this.hold(true);
    this.ready = new Promise((resolve, reject) => {
      this.pending.set(0, { resolve: () => resolve(), reject });
    });
    this.ready.catch(() => undefined);
    this.child.on("message", (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) {
        this.hold(false);
        this.resource.setBusy(false);
      }
      p.resolve(m);
    });
    const fail = (err: Error) => {
      this.dead = true;
      this.resource.release();
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.child.on("error", (e) => fail(e));
    this.child.on("exit", (code, sig) => fail(new SandboxError(`sqlite process exited (${sig ?? code})`)));
  }

  /** Keeps the parent's event loop alive only while a reply is awaited (idle pooled processes do not hold it open). */
  private hold(on: boolean): void {
    const channel = (this.child as unknown as { channel?: { ref(): void; unref(): void } }).channel;
    if (on) {
      this.child.ref();
      channel?.ref();
    } else {
      this.child.unref();
      channel?.unref();
    }
  }

  get alive(): boolean {
    return !this.dead;
  }

  call(msg: Record<string, unknown>): Promise<Reply> {
    if (this.dead) return Promise.reject(new SandboxError("sqlite process is gone"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.hold(true);
      this.resource.setBusy(true);
      this.child.send({ ...msg, id }, (err) => {
        if (err) {
          this.pending.delete(id);
          reject(err);
        }
      });
    });
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.dead = true;
    this.resource.release();
    this.hold(true);
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGKILL");
    await exited;
  }
}

export interface SqliteEngineOptions extends SqliteSourceOptions {
  /** Warm idle processes kept at most (default 4; one spare is started whenever none is idle). */
  poolSize?: number;
  /** Default time limit per action. */
  timeoutMs?: number;
  /** A process unused this long is killed by the reaper (default IC_HELPER_IDLE_MS). */
  idleMs?: number;
  /** Share database images (and conversions) with other engines. */
  sources?: SqliteSources;
}

/** Creates the embedded SQLite engine. */
export function createSqliteEngine(options: SqliteEngineOptions = {}): SqliteEngine {
  return new SqliteEngine(options);
}

export class SqliteEngine implements SqlEngine {
  readonly kind = "sqlite" as const;
  readonly id: string;
  readonly sources: SqliteSources;
  private readonly idle: WorkerHandle[] = [];
  private readonly poolSize: number;
  private readonly file = workerPath();
  readonly timeoutMs: number;
  private readonly idleMs: number;
  private closed = false;

  constructor(options: SqliteEngineOptions = {}) {
    this.sources = options.sources ?? new SqliteSources(options);
    this.id = `sqlite:${this.sources.collation}`;
    this.poolSize = options.poolSize ?? 4;
    this.timeoutMs = options.timeoutMs ?? ACTION_TIMEOUT_MS;
    this.idleMs = options.idleMs ?? config().helperIdleMs;
  }

  /** A new process, registered as this engine's warm pool's. */
  private spawn(): WorkerHandle {
    return new WorkerHandle(this.file, `pool:${this.id}`, this.idleMs);
  }

  /** Idle processes still alive (the reaper may have ended some while they waited). */
  private liveIdle(): WorkerHandle[] {
    for (let i = this.idle.length - 1; i >= 0; i--) if (!this.idle[i]!.alive) this.idle.splice(i, 1);
    return this.idle;
  }

  /** A ready worker: a warm one from the pool, else a new one. Tops the pool up in the background. */
  async acquire(owner: string): Promise<WorkerHandle> {
    let h = this.idle.pop();
    while (h && !h.alive) h = this.idle.pop();
    if (!h) h = this.spawn();
    h.resource.setOwner(owner);
    this.refill();
    await h.ready;
    return h;
  }

  /** Keeps one spare process starting when the pool runs dry (released processes refill it otherwise). */
  private refill(): void {
    if (this.closed || this.poolSize === 0) return;
    if (this.liveIdle().length === 0) this.idle.push(this.spawn());
  }

  /** Returns a process to the pool; the most recently used ones (holding images) are kept. */
  release(h: WorkerHandle): void {
    if (this.closed || !h.alive) {
      void h.kill();
      return;
    }
    h.resource.setOwner(`pool:${this.id}`);
    this.liveIdle().push(h);
    while (this.idle.length > this.poolSize) void this.idle.shift()!.kill();
  }

  /** Warms the pool and loads `db`'s image (conversion included) without opening a session. */
  prepare(db: string): void {
    this.sources.get(db);
    while (!this.closed && this.liveIdle().length < this.poolSize) this.idle.push(this.spawn());
  }

  async open(db: string): Promise<SqlSession> {
    const image = this.sources.get(db);
    const handle = await this.acquire(`session:${image.name}`);
    await loadInto(handle, image);
    return new SqliteSession(this, image, handle);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((h) => h.kill()));
  }
}

async function loadInto(handle: WorkerHandle, image: SqliteImage): Promise<void> {
  const send = !handle.images.has(image.name);
  const r = await handle.call({ type: "load", name: image.name, image: send ? image.image : undefined });
  if (!r.ok) throw new SandboxError(`could not load database ${image.name}: ${r.error}`);
  handle.images.add(image.name);
}

function decimalScale(type: string): number | null {
  const m = /^(?:decimal|numeric|dec|fixed)(?:\((\d+)(?:,(\d+))?\))?/.exec(type);
  if (!m) return null;
  return m[2] ? Number(m[2]) : 0;
}

/** `2018-03-19 04:39:54` → a Python datetime; null when the text is not one. */
export function parseDateTimeCell(text: string, kind: "datetime" | "date"): SqlCell | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (kind === "date") return { py: "date", year, month, day };
  return {
    py: "datetime",
    year,
    month,
    day,
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
    microsecond: m[7] ? Number(m[7].padEnd(6, "0")) : 0,
  };
}

/**
 * Types raw SQLite values as MySQL's connector would have: INTEGER → int (bigint), REAL → float,
 * and values of catalog columns declared DECIMAL / DATE / DATETIME in MySQL → Decimal / date / datetime.
 */
function typeCells(columns: RawColumn[], rows: unknown[][], tables: CatalogTable[]): SqlCell[][] {
  const kinds = columns.map((c) => {
    if (!c.table || !c.column) return null;
    const t = tables.find((x) => x.name === c.table!.toLowerCase());
    const col = t?.columns.find((x) => x.name.toLowerCase() === c.column!.toLowerCase());
    if (!col) return null;
    // Only while the table still has its original shape (the agent may have rebuilt it).
    if (col.affinity !== declaredAffinity(c.type)) return null;
    const scale = decimalScale(col.type);
    if (scale !== null) return { kind: "decimal" as const, scale };
    if (/^(datetime|timestamp)/.test(col.type)) return { kind: "datetime" as const };
    if (/^date\b/.test(col.type)) return { kind: "date" as const };
    return null;
  });
  return rows.map((row) =>
    row.map((v, i): SqlCell => {
      const k = kinds[i];
      if (k && v !== null) {
        if (k.kind === "decimal" && (typeof v === "bigint" || typeof v === "number")) {
          const text = typeof v === "bigint" ? (k.scale > 0 ? `${v}.${"0".repeat(k.scale)}` : `${v}`) : v.toFixed(k.scale);
          return { py: "decimal", text };
        }
        if (k.kind !== "decimal" && typeof v === "string") return parseDateTimeCell(v, k.kind) ?? v;
      }
      if (typeof v === "number") return { py: "float", value: v };
      return v as SqlCell;
    }),
  );
}

function declaredAffinity(type: string | null): string | null {
  return type ? type.toUpperCase() : null;
}

class SqliteSession implements SqlSession {
  private handle: WorkerHandle | null;
  readonly db: string;

  constructor(
    private readonly engine: SqliteEngine,
    private readonly image: SqliteImage,
    handle: WorkerHandle,
  ) {
    this.handle = handle;
    this.db = image.name;
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryOutcome> {
    if (!this.handle) return { ok: false, error: "the session is closed" };
    const plan = planForSqlite(sql);
    if (!plan.ok) return { ok: false, error: plan.error };
    const timeoutMs = options.timeoutMs ?? this.engine.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    let last: SqlResult = { columns: [], rows: [], truncated: false, resultSet: false };
    for (const st of plan.statements) {
      const r = await this.runOne(st, deadline, options.signal);
      if (!r.ok) return r;
      last = r.result;
    }
    return { ok: true, result: last };
  }

  private async runOne(st: PlannedStatement, deadline: number, signal?: AbortSignal): Promise<QueryOutcome> {
    switch (st.kind) {
      case "show-databases":
        return { ok: true, result: { columns: ["Database"], rows: [["information_schema"], [this.db]], truncated: false, resultSet: true } };
      case "use":
        return st.database.toLowerCase() === this.db.toLowerCase()
          ? { ok: true, result: { columns: [], rows: [], truncated: false, resultSet: false } }
          : { ok: false, error: `Unknown database '${st.database}'` };
      case "describe":
        return this.describe(st.table, deadline, signal);
      case "sql": {
        const r = await this.exec(st.sql, deadline, signal);
        if (!r.ok) return r.error === TIMEOUT_MESSAGE || r.aborted ? r : { ...r, error: mysqlStyleError(r.error, st.original, this.db) };
        return r;
      }
    }
  }

  private async describe(table: string, deadline: number, signal?: AbortSignal): Promise<QueryOutcome> {
    const lit = "'" + table.replace(/'/g, "''") + "'";
    const r = await this.exec(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(${lit})`, deadline, signal);
    if (!r.ok) return r;
    if (r.result.rows.length === 0) return { ok: false, error: `Table '${this.db}.${table}' doesn't exist` };
    const cols = ["Field", "Type", "Null", "Key", "Default", "Extra"];
    const names = r.result.rows.map((row) => String(row[0]));
    const known = this.image.tables.find((t) => t.name === table.toLowerCase());
    if (known && known.columns.length === names.length && known.columns.every((c, i) => c.name === names[i])) {
      const rows = known.columns.map((c) => [
        c.name,
        c.type,
        c.nullable ? "YES" : "NO",
        c.key,
        c.defaultValue,
        c.autoIncrement ? "auto_increment" : /^current_timestamp/i.test(c.defaultValue ?? "") ? "DEFAULT_GENERATED" : "",
      ]);
      return { ok: true, result: { columns: cols, rows, truncated: false, resultSet: true } };
    }
    const rows = r.result.rows.map((row) => [
      String(row[0]),
      String(row[1] ?? "").toLowerCase(),
      row[2] === 1n ? "NO" : "YES",
      Number(row[4]) > 0 ? "PRI" : "",
      row[3] === null ? null : String(row[3]).replace(/^'(.*)'$/s, "$1"),
      "",
    ]);
    return { ok: true, result: { columns: cols, rows, truncated: false, resultSet: true } };
  }

  /** Runs one SQLite statement in the worker, killing it at the deadline or on abort. */
  private async exec(sql: string, deadline: number, signal?: AbortSignal): Promise<QueryOutcome> {
    const handle = this.handle;
    if (!handle) return { ok: false, error: "the session is closed" };
    if (signal?.aborted) return { ok: false, error: "Query execution was interrupted", aborted: true };
    if (!handle.alive) {
      // The reaper ended it (idle past IC_HELPER_IDLE_MS): the episode's changes are gone, so say so rather than run on a fresh copy unnoticed.
      await this.restart();
      return { ok: false, error: "the session was idle too long and its database process was ended; the query did not run", reset: true };
    }
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<"timeout" | "abort">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()));
      onAbort = () => resolve("abort");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const reply = await Promise.race([handle.call({ type: "query", statements: [sql], maxRows: MAX_RESULT_ROWS, maxBytes: MAX_RESULT_BYTES }), stop]);
      if (reply === "timeout" || reply === "abort") {
        await this.restart();
        return reply === "timeout"
          ? { ok: false, error: TIMEOUT_MESSAGE, timedOut: true, reset: true }
          : { ok: false, error: "Query execution was interrupted", aborted: true, reset: true };
      }
      if (!reply.ok) return { ok: false, error: reply.error };
      const raw = reply.result!;
      return {
        ok: true,
        result: {
          columns: raw.columns.map((c) => c.name),
          rows: typeCells(raw.columns, raw.rows, this.image.tables),
          truncated: raw.truncated,
          resultSet: raw.reader,
          ...(raw.reader ? {} : { changes: raw.changes }),
        },
      };
    } catch (err) {
      // The worker died (e.g. out of memory): start over on a fresh copy.
      await this.restart();
      return { ok: false, error: `the query stopped the database (${(err as Error).message})`, reset: true };
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Replaces a killed worker with a fresh one holding a fresh copy of the database. */
  private async restart(): Promise<void> {
    const old = this.handle;
    this.handle = null;
    if (old) await old.kill();
    const h = await this.engine.acquire(`session:${this.image.name}`);
    await loadInto(h, this.image);
    this.handle = h;
  }

  async close(): Promise<void> {
    const h = this.handle;
    this.handle = null;
    if (!h) return;
    try {
      const r = await h.call({ type: "unload" });
      if (r.ok) {
        this.engine.release(h);
        return;
      }
    } catch {
      // fall through: a broken worker is not reused
    }
    await h.kill();
  }
}
