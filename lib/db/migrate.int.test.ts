import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { storeEngines, tempPgStoreUrl } from "@/lib/testing/store";
import { applyMigrations, migrationsDir, readMigrations } from "./migrate";
import { applyPgMigrations, dropPgSchema, openPgPool, pgConnection } from "./postgres";
import { type ColumnKind, TABLES, tableColumns } from "./rows";
import { pgSql } from "./sql";
import { openSqlite } from "./sqlite";

const realMigrations = path.resolve(__dirname, "../../prisma/migrations");
const pgMigrations = path.resolve(__dirname, "../../prisma/migrations-postgresql");
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "ic-migrate-"));

/*
 * The migrations are hand-written SQL, one set per engine; the tables they make are held to the
 * row schemas of lib/db/rows.ts (which TypeScript holds to schema.prisma): every table and column,
 * its kind and nullability, nothing more. Indexes and foreign keys, which the row schemas do not
 * state, are held to each other: the two engines must end with the same ones.
 */

/** What a migrated database holds, read the same way from either engine. */
interface Shape {
  tables: string[];
  columns: Map<string, Array<{ name: string; type: string; notNull: boolean }>>;
  /** "Table.index(key columns)", "UNIQUE " first when unique: those made by CREATE INDEX, not the primary keys. A PostgreSQL index's INCLUDE columns are its own (index-only reads) and not listed. */
  indexes: string[];
  /** "Table.column -> Parent ON DELETE action". */
  foreignKeys: string[];
}

/** Tables the migrations make beside the store's: the migration ledger, the FTS switch and the full-text index (and its word bitmaps on PostgreSQL). */
const isInternal = (t: string) =>
  t.startsWith("sqlite_") || t === "_studio_migrations" || t === "_FtsControl" || /^(EpisodeSearch|TurnSearch|EpisodeText|EpisodeWord)(_|$)/.test(t);

/** Each engine's column types, by kind. */
const KIND_OF_TYPE: Record<"sqlite" | "postgresql", Record<string, ColumnKind>> = {
  sqlite: { TEXT: "text", INTEGER: "number", REAL: "number", BIGINT: "bigint", BOOLEAN: "flag", DATETIME: "time" },
  postgresql: { TEXT: "text", INTEGER: "number", "DOUBLE PRECISION": "number", BIGINT: "bigint", BOOLEAN: "flag", "TIMESTAMP(3) WITHOUT TIME ZONE": "time" },
};

/** Every difference between a migrated database and the row schemas. */
function compareWithRowSchemas(shape: Shape, engine: "sqlite" | "postgresql"): string[] {
  const problems: string[] = [];
  for (const t of shape.tables) if (!isInternal(t) && !(TABLES as string[]).includes(t)) problems.push(`table ${t} has no row schema`);
  for (const table of TABLES) {
    const live = shape.columns.get(table);
    if (!live) {
      problems.push(`table ${table} is missing`);
      continue;
    }
    const byName = new Map(live.map((c) => [c.name, c]));
    const columns = tableColumns(table);
    for (const c of columns) {
      const l = byName.get(c.name);
      if (!l) {
        problems.push(`${table}.${c.name}: column missing`);
        continue;
      }
      const kind = KIND_OF_TYPE[engine][l.type.toUpperCase()];
      if (kind !== c.kind) problems.push(`${table}.${c.name}: ${l.type} in the database, the row schema reads ${c.kind}`);
      if (l.notNull === c.nullable)
        problems.push(
          `${table}.${c.name}: ${l.notNull ? "NOT NULL" : "nullable"} in the database, the row schema says ${c.nullable ? "nullable" : "not null"}`,
        );
    }
    for (const l of live) if (!columns.some((c) => c.name === l.name)) problems.push(`${table}.${l.name}: column not in the row schema`);
  }
  return problems;
}

/** A SQLite database's shape, from its PRAGMAs. */
function sqliteShape(db: Database.Database): Shape {
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name);
  const shape: Shape = { tables, columns: new Map(), indexes: [], foreignKeys: [] };
  for (const t of tables.filter((t) => !isInternal(t))) {
    const cols = db.prepare(`PRAGMA table_info("${t}")`).all() as Array<{ name: string; type: string; notnull: number; pk: number }>;
    shape.columns.set(
      t,
      cols.map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1 || c.pk > 0 })),
    );
    for (const i of (db.prepare(`PRAGMA index_list("${t}")`).all() as Array<{ name: string; unique: number; origin: string }>).filter(
      (i) => i.origin === "c",
    )) {
      const columns = (db.prepare(`PRAGMA index_info("${i.name}")`).all() as Array<{ name: string | null }>).map((r) => r.name ?? "(expression)");
      shape.indexes.push(`${i.unique ? "UNIQUE " : ""}${t}.${i.name}(${columns.join(", ")})`);
    }
    for (const f of db.prepare(`PRAGMA foreign_key_list("${t}")`).all() as Array<{ table: string; from: string; on_delete: string }>)
      shape.foreignKeys.push(`${t}.${f.from} -> ${f.table} ON DELETE ${f.on_delete}`);
  }
  return shape;
}

const PG_ON_DELETE: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };

/** A PostgreSQL schema's shape, from its catalogs (the schema on the connection's search path). */
async function postgresShape(sql: ReturnType<typeof pgSql>): Promise<Shape> {
  const tables = (
    await sql.all<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace`)
  ).map((r) => r.name);
  const shape: Shape = { tables, columns: new Map(), indexes: [], foreignKeys: [] };
  const cols = await sql.all<{ t: string; name: string; type: string; notnull: number }>(
    `SELECT c.relname AS t, a.attname AS name, upper(format_type(a.atttypid, a.atttypmod)) AS type, a.attnotnull AS notnull
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
  );
  for (const c of cols) {
    if (isInternal(c.t)) continue;
    const list = shape.columns.get(c.t) ?? [];
    list.push({ name: c.name, type: c.type, notNull: Boolean(c.notnull) });
    shape.columns.set(c.t, list);
  }
  const idx = await sql.all<{ t: string; name: string; unique: number; columns: string[] }>(
    `SELECT t.relname AS t, ic.relname AS name, i.indisunique AS "unique",
            ARRAY(SELECT COALESCE(a.attname::text, '(expression)') FROM unnest(i.indkey) WITH ORDINALITY k(n, o) LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n WHERE k.o <= i.indnkeyatts ORDER BY k.o) AS columns
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND NOT i.indisprimary`,
  );
  for (const i of idx) if (!isInternal(i.t)) shape.indexes.push(`${i.unique ? "UNIQUE " : ""}${i.t}.${i.name}(${i.columns.join(", ")})`);
  const fks = await sql.all<{ t: string; ref: string; col: string; del: string }>(
    `SELECT c.relname AS t, r.relname AS ref, a.attname AS col, k.confdeltype AS del
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
     JOIN LATERAL unnest(k.conkey) AS u(n) ON true JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = u.n
     WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`,
  );
  for (const f of fks) if (!isInternal(f.t)) shape.foreignKeys.push(`${f.t}.${f.col} -> ${f.ref} ON DELETE ${PG_ON_DELETE[f.del] ?? f.del}`);
  return shape;
}

/** Indexes and foreign keys one engine has and the other lacks. */
function compareEngines(sqlite: Shape, pg: Shape): string[] {
  const only = (what: string, a: string[], b: string[], engine: string) => a.filter((x) => !b.includes(x)).map((x) => `${what} ${x} only on ${engine}`);
  return [
    ...only("index", sqlite.indexes, pg.indexes, "sqlite"),
    ...only("index", pg.indexes, sqlite.indexes, "postgresql"),
    ...only("foreign key", sqlite.foreignKeys, pg.foreignKeys, "sqlite"),
    ...only("foreign key", pg.foreignKeys, sqlite.foreignKeys, "postgresql"),
  ];
}

function migratedSqlite(): Database.Database {
  const db = new Database(":memory:");
  applyMigrations(db, realMigrations);
  return db;
}

describe("migrations", () => {
  it("the migrated database has every table of the row schemas (so of schema.prisma), each column of its kind and nullability, nothing else", () => {
    expect([...TABLES].sort()).toEqual([
      "Annotation",
      "Episode",
      "GoldCache",
      "ImportedFile",
      "Participant",
      "RecordingChunk",
      "Run",
      "SealReveal",
      "Session",
      "Study",
      "StudyTaskClock",
      "TranscriptMessage",
      "Turn",
      "TurnReplay",
    ]);
    const shape = sqliteShape(migratedSqlite());
    expect(shape.indexes.filter((i) => i.includes("Episode.")).length).toBeGreaterThan(10);
    expect(compareWithRowSchemas(shape, "sqlite")).toEqual([]);
  });

  it("the comparison notices a column, a nullability or a table that differs", () => {
    const db = migratedSqlite();
    db.exec(`ALTER TABLE "Episode" DROP COLUMN "errorReason"; ALTER TABLE "Run" ADD COLUMN "stray" TEXT; CREATE TABLE "Stray" (x INTEGER)`);
    db.exec(
      `DROP TABLE "SealReveal"; CREATE TABLE "SealReveal" ("id" TEXT NOT NULL PRIMARY KEY, "studyId" TEXT, "what" INTEGER NOT NULL, "createdAt" DATETIME NOT NULL)`,
    );
    const problems = compareWithRowSchemas(sqliteShape(db), "sqlite");
    expect(problems).toContain("Episode.errorReason: column missing");
    expect(problems).toContain("Run.stray: column not in the row schema");
    expect(problems).toContain("table Stray has no row schema");
    expect(problems).toContain("SealReveal.studyId: nullable in the database, the row schema says not null");
    expect(problems).toContain("SealReveal.what: INTEGER in the database, the row schema reads text");
  });

  it("applies once, records checksums, and refuses an applied migration that was edited", () => {
    const dir = tmp();
    for (const m of readMigrations(realMigrations)) {
      fs.mkdirSync(path.join(dir, m.name));
      fs.writeFileSync(path.join(dir, m.name, "migration.sql"), m.sql);
    }
    const file = path.join(dir, "t.db");
    const db = new Database(file);
    expect(applyMigrations(db, dir)).toEqual(readMigrations(realMigrations).map((m) => m.name));
    expect(applyMigrations(db, dir)).toEqual([]);
    const first = readMigrations(dir)[0];
    fs.appendFileSync(path.join(dir, first.name, "migration.sql"), "\n-- edited\n");
    expect(() => applyMigrations(db, dir)).toThrow(/edited after it was applied/);
  });

  it("a failing migration leaves nothing behind (one transaction each)", () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, "20260101000000_ok"));
    fs.writeFileSync(path.join(dir, "20260101000000_ok", "migration.sql"), `CREATE TABLE "A" (x INTEGER);`);
    fs.mkdirSync(path.join(dir, "20260102000000_bad"));
    fs.writeFileSync(path.join(dir, "20260102000000_bad", "migration.sql"), `CREATE TABLE "B" (x INTEGER); INSERT INTO "Nope" VALUES (1);`);
    const db = new Database(":memory:");
    expect(() => applyMigrations(db, dir)).toThrow(/Nope/);
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type='table'`).all() as Array<{ name: string }>).map((r) => r.name);
    expect(tables).toContain("A");
    expect(tables).not.toContain("B");
    expect((db.prepare(`SELECT name FROM _studio_migrations`).all() as Array<{ name: string }>).map((r) => r.name)).toEqual(["20260101000000_ok"]);
  });

  it("opens a fresh file in WAL mode with foreign keys on", () => {
    const file = path.join(tmp(), "sub", "studio.db");
    const db = openSqlite(file);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(migrationsDir()).toBe(realMigrations);
  });
});

describe("episode_flags migration", () => {
  it("marks ReAct logs imported before it whose last action is the forced submit, and counts their turns as the log did", () => {
    const dir = tmp();
    const all = readMigrations(realMigrations);
    const at = all.findIndex((m) => m.name.endsWith("_episode_flags"));
    const copy = (m: { name: string; sql: string }) => {
      fs.mkdirSync(path.join(dir, m.name));
      fs.writeFileSync(path.join(dir, m.name, "migration.sql"), m.sql);
    };
    all.slice(0, at).forEach(copy);
    const db = new Database(":memory:");
    applyMigrations(db, dir);
    const episode = db.prepare(
      `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "policy", "turnLimit", "mode", "turnCount", "createdAt", "updatedAt") VALUES (?, 'sql', 'spider-dev', ?, 'q', 'model', ?, 3, ?, ?, 0, 0)`,
    );
    const turn = db.prepare(`INSERT INTO "Turn" ("episodeId", "index", "actor", "action", "observation", "createdAt") VALUES (?, ?, 'model', ?, '', 0)`);
    const add = (id: string, policy: string, mode: string, actions: string[]) => {
      episode.run(id, id, policy, mode, actions.length);
      for (const [i, a] of actions.entries()) turn.run(id, i, a);
    };
    add("forced", "react", "import", ["execute[a]", "execute[b]", "execute[c]", "submit"]);
    add("submitted", "react", "import", ["execute[a]", "submit"]);
    add("four-actions", "react", "import", ["execute[a]", "execute[b]", "execute[c]", "execute[d]"]);
    add("played", "react", "play", ["a", "b", "c", "submit"]);
    add("try-again", "try-again", "import", ["a", "b", "c", "submit"]);
    all.slice(at, at + 1).forEach(copy);
    applyMigrations(db, dir);
    const rows = db.prepare(`SELECT "id", "flags", "turnsTaken" FROM "Episode" ORDER BY "id"`).all();
    expect(rows).toEqual([
      { id: "forced", flags: "forced-submit", turnsTaken: 3 },
      { id: "four-actions", flags: "", turnsTaken: null },
      { id: "played", flags: "", turnsTaken: null },
      { id: "submitted", flags: "", turnsTaken: null },
      { id: "try-again", flags: "", turnsTaken: null },
    ]);
  });
});

// PostgreSQL's migrations (prisma/migrations-postgresql), when a server is given (IC_TEST_PG_URL).
for (const engine of storeEngines().filter((e) => e === "postgresql")) {
  describe(`migrations on ${engine}`, () => {
    it("the migrated schema matches the row schemas and has SQLite's indexes and foreign keys; a second run applies nothing; an edited migration is refused", async () => {
      const url = tempPgStoreUrl("migrate");
      const pool = await openPgPool(url);
      try {
        const { schema } = pgConnection(url);
        expect(await applyPgMigrations(pool, pgMigrations, schema)).toEqual(readMigrations(pgMigrations).map((m) => m.name));
        const sqlite = sqliteShape(migratedSqlite());
        const pg = await postgresShape(pgSql(pool));
        expect(compareWithRowSchemas(pg, "postgresql")).toEqual([]);
        expect(compareEngines(sqlite, pg)).toEqual([]);
        expect(await applyPgMigrations(pool, pgMigrations, schema)).toEqual([]);
        await pool.query(`DROP INDEX "Episode_model_id_idx"; ALTER TABLE "Episode" DROP COLUMN "errorReason"; CREATE TABLE "Stray" (x INTEGER)`);
        const changed = await postgresShape(pgSql(pool));
        const problems = compareWithRowSchemas(changed, "postgresql");
        expect(problems).toContain("Episode.errorReason: column missing");
        expect(problems).toContain("table Stray has no row schema");
        expect(compareEngines(sqlite, changed)).toEqual(["index Episode.Episode_model_id_idx(model, id, searchKey) only on sqlite"]);
        const dir = tmp();
        for (const m of readMigrations(pgMigrations)) {
          fs.mkdirSync(path.join(dir, m.name));
          fs.writeFileSync(path.join(dir, m.name, "migration.sql"), m.sql + "\n-- edited\n");
        }
        await expect(applyPgMigrations(pool, dir, schema)).rejects.toThrow(/edited after it was applied/);
      } finally {
        await pool.end();
        await dropPgSchema(url);
      }
    });
  });
}
