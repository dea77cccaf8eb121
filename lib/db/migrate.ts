import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { config } from "@/lib/config";
import { StorageError } from "@/lib/errors";

/** One migration folder in prisma/migrations (Prisma's layout: `<timestamp>_<name>/migration.sql`). */
export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** Where the SQL migrations live: IC_MIGRATIONS_DIR, else prisma/migrations under the working directory. */
export function migrationsDir(): string {
  return config().migrationsDir;
}

/** Reads every migration in name (timestamp) order. */
export function readMigrations(dir = migrationsDir()): MigrationFile[] {
  if (!fs.existsSync(dir)) throw new StorageError(`no migrations folder at ${dir} (run from the project root or set IC_MIGRATIONS_DIR)`);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const LEDGER = `CREATE TABLE IF NOT EXISTS "_studio_migrations" (
  "name" TEXT NOT NULL PRIMARY KEY,
  "checksum" TEXT NOT NULL,
  "appliedAt" INTEGER NOT NULL
)`;

/**
 * Refuses (StorageError) a database whose applied migrations do not match the files: one edited
 * since it was applied, or one this code does not know (the database is newer than the code).
 * The same check on both engines (lib/db/postgres.ts applies PostgreSQL's).
 */
export function checkAppliedMigrations(files: MigrationFile[], applied: Array<{ name: string; checksum: string }>): void {
  const known = new Map(files.map((f) => [f.name, f]));
  for (const row of applied) {
    const file = known.get(row.name);
    if (!file)
      throw new StorageError(`the database has migration ${row.name}, which this version of the Studio does not know: it was written by a newer version`);
    if (file.checksum !== row.checksum)
      throw new StorageError(`migration ${row.name} was edited after it was applied (checksum differs): restore the file, or add a new migration instead`);
  }
}

/**
 * Applies pending migrations, each in its own IMMEDIATE transaction together with its ledger row,
 * so a crash leaves a migration either wholly applied or not at all and two processes starting at
 * once cannot both apply it. Refuses (StorageError) when an applied migration's file has changed
 * since, or when the database holds a migration this code does not know (it is newer than the code).
 * Returns the names applied now.
 */
export function applyMigrations(db: Database.Database, dir = migrationsDir()): string[] {
  const files = readMigrations(dir);
  db.exec(LEDGER);
  const appliedRows = db.prepare(`SELECT "name", "checksum" FROM "_studio_migrations"`).all() as Array<{ name: string; checksum: string }>;
  checkAppliedMigrations(files, appliedRows);
  const applied: string[] = [];
  const isApplied = db.prepare(`SELECT 1 FROM "_studio_migrations" WHERE "name" = ?`);
  const record = db.prepare(`INSERT INTO "_studio_migrations" ("name", "checksum", "appliedAt") VALUES (?, ?, ?)`);
  for (const file of files) {
    const run = db.transaction(() => {
      if (isApplied.get(file.name)) return false;
      db.exec(file.sql);
      record.run(file.name, file.checksum, Date.now());
      return true;
    });
    if (run.immediate()) applied.push(file.name);
  }
  return applied;
}
