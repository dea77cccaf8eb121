// A child process that owns one in-memory SQLite database for one episode. The parent
// (lib/sql/sqlite-engine.ts) kills it (SIGKILL) when a query runs past its time limit: a query
// that loops inside SQLite never returns to JavaScript, so neither a worker thread's terminate()
// nor anything better-sqlite3 offers can stop it; a process can always be killed.
// Plain JavaScript so that it runs the same under tsx, vitest and Next.js.
import Database from "better-sqlite3";

/** Database images this process has seen, by name: a reset re-reads from here. */
const images = new Map();
const send = (m) => process.send(m);

/** @type {import("better-sqlite3").Database | null} */
let db = null;

function approxBytes(v) {
  if (v === null) return 4;
  if (typeof v === "string") return v.length + 2;
  if (v instanceof Uint8Array) return v.length + 3;
  return 8;
}

function load(name, image) {
  if (image) images.set(name, Buffer.from(image.buffer, image.byteOffset, image.byteLength));
  const buf = images.get(name);
  if (!buf) throw new Error(`no image for ${name}`);
  if (db) db.close();
  db = new Database(buf);
  // Writable copies stay in memory; nothing of this database reaches a file.
  db.pragma("foreign_keys = OFF");
  db.pragma("trusted_schema = OFF");
  db.pragma("temp_store = MEMORY");
}

function runStatements(statements, maxRows, maxBytes) {
  if (!db) throw new Error("no database loaded");
  let last = { columns: [], rows: [], truncated: false, changes: 0, reader: false };
  for (const sql of statements) {
    const stmt = db.prepare(sql);
    if (stmt.reader) {
      stmt.safeIntegers(true);
      stmt.raw(true);
      const columns = stmt.columns().map((c) => ({ name: c.name, table: c.table, column: c.column, type: c.type }));
      const rows = [];
      let bytes = 0;
      let truncated = false;
      for (const row of stmt.iterate()) {
        if (rows.length >= maxRows || bytes >= maxBytes) {
          truncated = true;
          break;
        }
        for (const v of row) bytes += approxBytes(v);
        rows.push(row);
      }
      last = { columns, rows, truncated, changes: 0, reader: true };
    } else {
      const info = stmt.run();
      last = { columns: [], rows: [], truncated: false, changes: info.changes, reader: false };
    }
  }
  return last;
}

process.on("message", (msg) => {
  try {
    if (msg.type === "load") {
      load(msg.name, msg.image);
      send({ id: msg.id, ok: true });
    } else if (msg.type === "query") {
      send({ id: msg.id, ok: true, result: runStatements(msg.statements, msg.maxRows, msg.maxBytes) });
    } else if (msg.type === "unload") {
      if (db) db.close();
      db = null;
      send({ id: msg.id, ok: true });
    } else {
      send({ id: msg.id, ok: false, error: `unknown message ${msg.type}` });
    }
  } catch (err) {
    send({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err), code: err?.code });
  }
});
// Caps the native memory of this process (SQLite's own allocations): a runaway query fails
// with "out of memory" instead of taking the host down.
// The cap comes as the first argument (sqlite-engine.ts forks this file with it).
const heapBytes = Number(process.argv[2]);
if (Number.isInteger(heapBytes) && heapBytes > 0) {
  const probe = new Database(":memory:");
  probe.pragma(`hard_heap_limit = ${heapBytes}`);
  probe.close();
}
process.on("disconnect", () => process.exit(0));
send({ id: 0, ok: true, ready: true });
