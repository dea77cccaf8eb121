import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { applyMigrations, migrationsDir, readMigrations } from "./migrate";
import { dropPgSchema, openPgPool, applyPgMigrations, pgConnection } from "./postgres";
import { compareSchemaWithDatabase, compareSchemaWithPostgres, parsePrismaSchema } from "./schema-match";
import { pgSql } from "./sql";
import { openSqlite } from "./sqlite";
import { storeEngines, tempPgStoreUrl } from "@/lib/testing/store";

const schemaPath = path.resolve(__dirname, "../../prisma/schema.prisma");
const realMigrations = path.resolve(__dirname, "../../prisma/migrations");
const pgMigrations = path.resolve(__dirname, "../../prisma/migrations-postgresql");
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "ic-migrate-"));

describe("migrations", () => {
  it("the migrated database matches schema.prisma: every model, field, index and foreign key", () => {
    const db = new Database(":memory:");
    applyMigrations(db, realMigrations);
    const models = parsePrismaSchema(fs.readFileSync(schemaPath, "utf8"));
    expect(models.map((m) => m.name).sort()).toEqual([
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
    expect(models.find((m) => m.name === "Episode")!.indexes.length).toBeGreaterThan(10);
    expect(compareSchemaWithDatabase(schemaPath, db)).toEqual([]);
  });

  it("the comparison notices a column, an index or a table that differs", () => {
    const db = new Database(":memory:");
    applyMigrations(db, realMigrations);
    db.exec(`DROP INDEX "Episode_model_id_idx"; ALTER TABLE "Episode" DROP COLUMN "errorReason"; CREATE TABLE "Stray" (x INTEGER)`);
    const problems = compareSchemaWithDatabase(schemaPath, db);
    expect(problems).toContain("index Episode_model_id_idx is missing");
    expect(problems).toContain("Episode.errorReason: column missing");
    expect(problems).toContain("table Stray is not in the schema");
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
    it("the migrated schema matches schema.prisma; a second run applies nothing; an edited migration is refused", async () => {
      const url = tempPgStoreUrl("migrate");
      const pool = await openPgPool(url);
      try {
        const { schema } = pgConnection(url);
        expect(await applyPgMigrations(pool, pgMigrations, schema)).toEqual(readMigrations(pgMigrations).map((m) => m.name));
        expect(await compareSchemaWithPostgres(schemaPath, pgSql(pool))).toEqual([]);
        expect(await applyPgMigrations(pool, pgMigrations, schema)).toEqual([]);
        await pool.query(`DROP INDEX "Episode_model_id_idx"; ALTER TABLE "Episode" DROP COLUMN "errorReason"; CREATE TABLE "Stray" (x INTEGER)`);
        const problems = await compareSchemaWithPostgres(schemaPath, pgSql(pool));
        expect(problems).toContain("index Episode_model_id_idx is missing");
        expect(problems).toContain("Episode.errorReason: column missing");
        expect(problems).toContain("table Stray is not in the schema");
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
