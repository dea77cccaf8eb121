import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import type Database from "better-sqlite3";
import type pg from "pg";
import { config, redactStoreUrl, type StoreTarget } from "@/lib/config";
import { BadInputError, ConflictError, StorageError } from "@/lib/errors";
import { applyPgMigrations, openPgPool, pgConnectError, pgConnection } from "./postgres";
import { type ColumnInfo, type ColumnKind, tableColumns } from "./rows";
import { pgSql, sqliteSql, type Sql } from "./sql";
import { openSqlite } from "./sqlite";
import { toStorageError } from "./storage-error";

/** The tables a store holds, parents before children (foreign keys). */
export const STORE_TABLES = [
  "Run",
  "Study",
  "Episode",
  "Turn",
  "TranscriptMessage",
  "RecordingChunk",
  "Annotation",
  "TurnReplay",
  "GoldCache",
  "ImportedFile",
] as const;

/** One store opened for a copy: its raw SQL on a connection of its own. */
interface OpenStore {
  name: string;
  sql: Sql;
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  close(): Promise<void>;
}

function storeLabel(t: StoreTarget): string {
  return t.kind === "sqlite" ? t.file : redactStoreUrl(t.url);
}

async function openStore(t: StoreTarget, { mustExist }: { mustExist: boolean }): Promise<OpenStore> {
  const name = storeLabel(t);
  if (t.kind === "sqlite") {
    if (mustExist && !fs.existsSync(t.file)) throw new StorageError(`no SQLite store at ${t.file}`);
    const db: Database.Database = openSqlite(t.file);
    const sql = sqliteSql(db);
    return {
      name,
      sql,
      begin: async () => void db.exec("BEGIN IMMEDIATE"),
      commit: async () => void db.exec("COMMIT"),
      rollback: async () => void (db.inTransaction && db.exec("ROLLBACK")),
      close: async () => {
        db.close();
      },
    };
  }
  const pool = await openPgPool(t.url, { max: 1 });
  let client: pg.PoolClient;
  try {
    // The pool's one connection: first for the migrations, then held for the copy.
    await pool.query("SELECT 1").catch((err) => {
      throw pgConnectError(t.url, err);
    });
    await applyPgMigrations(pool, config().pgMigrationsDir, pgConnection(t.url).schema);
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return {
    name,
    sql: pgSql(client),
    begin: async () => void (await client.query("BEGIN")),
    commit: async () => void (await client.query("COMMIT")),
    rollback: async () => void (await client.query("ROLLBACK").catch(() => {})),
    close: async () => {
      client.release();
      await pool.end();
    },
  };
}

/** Each table's columns, as its row schema (lib/db/rows.ts) names them: the copy moves every one. */
type StoreTable = (typeof STORE_TABLES)[number];
type StoreColumns = Map<StoreTable, ColumnInfo[]>;
function storeColumns(): StoreColumns {
  return new Map(STORE_TABLES.map((t) => [t, tableColumns(t)]));
}

/** A DateTime read from either engine as Unix ms (SQLite's raw CURRENT_TIMESTAMP defaults are text). */
function ms(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return v;
  const s = String(v);
  return /^\d+$/.test(s) ? Number(s) : Date.parse(s.includes("T") ? s : s.replace(" ", "T") + "Z");
}

/** A value as the checksum sees it, the same whichever engine it came from. */
function canonical(kind: ColumnKind, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (kind === "time") return ms(v);
  if (kind === "flag") return v ? 1 : 0;
  if (kind === "number" || kind === "bigint") return Number(v);
  // PostgreSQL stores U+0000 as U+2400 (lib/db/sql.ts pgText): compare them as equal.
  return String(v).replaceAll("\0", "\u2400");
}

const KEYSET = 1000;

/** Every row of a table in primary-key order, a page at a time. */
async function* rowsOf(sql: Sql, table: StoreTable, columns: ColumnInfo[]): AsyncGenerator<Record<string, unknown>[]> {
  const cols = columns.map((f) => `"${f.name}"`).join(", ");
  let last: unknown = null;
  for (;;) {
    const page: Record<string, unknown>[] = await sql.all(
      `SELECT ${cols} FROM "${table}" ${last === null ? "" : `WHERE "id" > ?`} ORDER BY "id" LIMIT ${KEYSET}`,
      last === null ? [] : [last],
    );
    if (!page.length) return;
    yield page;
    last = page[page.length - 1].id;
    if (page.length < KEYSET) return;
  }
}

/** Per-table row counts and one checksum over every row (order-independent), the same on both engines. */
async function storeFingerprint(sql: Sql, columns = storeColumns()): Promise<{ counts: Record<string, number>; checksum: string }> {
  const counts: Record<string, number> = {};
  const whole = createHash("sha256");
  for (const table of STORE_TABLES) {
    const fields = columns.get(table)!;
    let n = 0;
    let sum = 0n;
    for await (const page of rowsOf(sql, table, fields)) {
      for (const r of page) {
        const h = createHash("sha256")
          .update(JSON.stringify(fields.map((f) => canonical(f.kind, r[f.name]))))
          .digest();
        sum = (sum + h.readBigUInt64BE(0)) & 0xffffffffffffffffn;
        n++;
      }
    }
    counts[table] = n;
    whole.update(`${table}:${n}:${sum.toString(16)};`);
  }
  return { counts, checksum: whole.digest("hex") };
}

export interface CopyReport {
  from: string;
  to: string;
  counts: Record<string, number>;
  checksum: string;
  replaced: boolean;
  ms: number;
}

/**
 * Copies a whole store (every table of schema.prisma, ids, times and search keys kept) from one
 * store to another, SQLite or PostgreSQL either way, in one transaction on the target: all of it
 * or nothing. Refuses a target holding any row unless `replace` (which empties it first, in the
 * same transaction). Then verifies: the target's per-table counts and checksum must equal the
 * source's, else the copy is a StorageError (and, the transaction being committed by then, says so).
 * The full-text index is rebuilt on the target from the copied rows.
 */
export async function copyStore({
  from,
  to,
  replace = false,
  log = () => {},
}: {
  from: StoreTarget;
  to: StoreTarget;
  replace?: boolean;
  log?: (line: string) => void;
}): Promise<CopyReport> {
  const t0 = performance.now();
  if (
    storeLabel(from) === storeLabel(to) &&
    from.kind === to.kind &&
    (from.kind === "sqlite" ? from.file : from.url) === (to.kind === "sqlite" ? to.file : to.url)
  )
    throw new BadInputError("the source and the target are the same store", "--to");
  const columns = storeColumns();
  const src = await openStore(from, { mustExist: true });
  let dst: OpenStore | null = null;
  try {
    dst = await openStore(to, { mustExist: false });
    const d = dst.sql;
    const isPg = d.dialect.name === "postgresql";
    const existing: string[] = [];
    for (const table of STORE_TABLES) {
      const n = Number((await d.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`))!.n);
      if (n) existing.push(`${table} ${n}`);
    }
    if (existing.length && !replace) throw new ConflictError(`the target ${dst.name} is not empty (${existing.join(", ")}): pass --replace to empty it first`);
    const srcPrint = await storeFingerprint(src.sql, columns);
    log(`source ${src.name}: ${STORE_TABLES.map((t) => `${t} ${srcPrint.counts[t]}`).join(", ")}`);
    await dst.begin();
    try {
      if (existing.length) {
        if (isPg) await d.run(`TRUNCATE ${STORE_TABLES.map((t) => `"${t}"`).join(", ")}, "EpisodeText" RESTART IDENTITY`);
        else for (const table of [...STORE_TABLES].reverse()) await d.run(`DELETE FROM "${table}"`);
      }
      // Index the copied episodes once at the end, not row by row through the triggers.
      if (isPg) await d.run(`SELECT set_config('ic.fts_deferred', 'on', true)`);
      else await d.run(`UPDATE "_FtsControl" SET "deferred" = 1 WHERE "id" = 1`);
      for (const table of STORE_TABLES) {
        const fields = columns.get(table)!;
        const per = Math.max(1, Math.min(500, Math.floor(30000 / fields.length)));
        const insert = (rows: number) =>
          `INSERT INTO "${table}" (${fields.map((f) => `"${f.name}"`).join(", ")}) VALUES ${Array(rows)
            .fill(`(${fields.map(() => "?").join(", ")})`)
            .join(", ")}`;
        let copied = 0;
        const parents: Array<[string, string]> = [];
        for await (const page of rowsOf(src.sql, table, fields)) {
          for (let i = 0; i < page.length; i += per) {
            const chunk = page.slice(i, i + per);
            const params: unknown[] = [];
            for (const r of chunk) {
              for (const f of fields) {
                let v = r[f.name];
                // A branch's parent may come later in id order: set it once every episode is in.
                if (table === "Episode" && f.name === "parentEpisodeId" && v !== null) {
                  parents.push([String(r.id), String(v)]);
                  v = null;
                }
                if (v !== null && v !== undefined) {
                  if (f.kind === "time") v = d.dialect.time(ms(v)!);
                  else if (f.kind === "flag") v = isPg ? Boolean(v) : v ? 1 : 0;
                }
                params.push(v ?? null);
              }
            }
            await d.run(insert(chunk.length), params);
          }
          copied += page.length;
        }
        for (const [id, parent] of parents) await d.run(`UPDATE "Episode" SET "parentEpisodeId" = ? WHERE "id" = ?`, [parent, id]);
        log(`  ${table}: ${copied}`);
      }
      if (isPg) {
        await d.run(
          `INSERT INTO "EpisodeText" ("searchKey", "doc") SELECT "searchKey", ic_search_doc(ic_episode_text("id")) FROM "Episode" WHERE "searchKey" IS NOT NULL`,
        );
        await d.run(`SELECT setval('"Episode_searchKey_seq"', COALESCE((SELECT MAX("searchKey") FROM "Episode"), 0) + 1, false)`);
        for (const table of STORE_TABLES) {
          if (columns.get(table)!.find((f) => f.name === "id")?.kind !== "number") continue;
          await d.run(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), COALESCE((SELECT MAX("id") FROM "${table}"), 0) + 1, false)`);
        }
      } else {
        await d.run(`INSERT INTO "EpisodeText"(rowid, "query", "body")
          SELECT e."searchKey", e."query", (SELECT group_concat(t."action" || ' ' || t."observation", ' ') FROM "Turn" t WHERE t."episodeId" = e."id")
          FROM "Episode" e WHERE e."searchKey" IS NOT NULL`);
        await d.run(`UPDATE "_FtsControl" SET "deferred" = 0 WHERE "id" = 1`);
      }
      await dst.commit();
    } catch (err) {
      await dst.rollback();
      throw err;
    }
    const dstPrint = await storeFingerprint(d, columns);
    const differ = STORE_TABLES.filter((t) => dstPrint.counts[t] !== srcPrint.counts[t]);
    if (differ.length || dstPrint.checksum !== srcPrint.checksum)
      throw new StorageError(
        `the copy in ${dst.name} does not match ${src.name}: ${differ.length ? differ.map((t) => `${t} ${dstPrint.counts[t]} rows, source ${srcPrint.counts[t]}`).join("; ") : "the checksums differ"}`,
      );
    return {
      from: src.name,
      to: dst.name,
      counts: dstPrint.counts,
      checksum: dstPrint.checksum,
      replaced: existing.length > 0,
      ms: Math.round(performance.now() - t0),
    };
  } catch (err) {
    throw toStorageError(err, dst?.name ?? src.name);
  } finally {
    await src.close().catch(() => {});
    await dst?.close().catch(() => {});
  }
}
