/**
 * The test store, one home for it: a fresh SQLite file, a temporary store on each engine the
 * store suite runs on (SQLite, PostgreSQL). (The shared InterCode folder is lib/datasets/paths.ts sharedIntercodeDir.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { config } from "@/lib/config";
import { closeStore } from "@/lib/db/client";
import { dropPgSchema, withPgSchema } from "@/lib/db/postgres";

/** A fresh database file for a test (sets IC_DB). */
export function useFreshDb(prefix: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `ic-${prefix}-`)), "studio.db");
  process.env.IC_DB = file;
  return file;
}

export type StoreEngine = "sqlite" | "postgresql";

/**
 * The engines the store tests run on: SQLite always, PostgreSQL when IC_TEST_PG_URL names a
 * database (scripts/start-postgres.sh prints one). With IC_REQUIRE_PG=1 a missing URL fails the
 * test file instead of leaving PostgreSQL out.
 */
export function storeEngines(): StoreEngine[] {
  const c = config();
  if (c.requirePg && !c.testPgUrl) throw new Error('IC_REQUIRE_PG=1 but IC_TEST_PG_URL is not set (eval "$(bash scripts/start-postgres.sh)")');
  return c.testPgUrl ? ["sqlite", "postgresql"] : ["sqlite"];
}

/** A store URL of a schema of its own in IC_TEST_PG_URL's database (dropped by dropPgSchema). */
export function tempPgStoreUrl(prefix: string): string {
  const base = config().testPgUrl;
  if (!base) throw new Error("IC_TEST_PG_URL is not set");
  return withPgSchema(base, `ic_${prefix.replace(/\W/g, "_")}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.toLowerCase());
}

/**
 * For a test file (or one describe block of it): a fresh store for all its tests, on SQLite (a
 * file in a temporary directory) or PostgreSQL (a schema of its own), closed and removed after them.
 */
export function useTempStore(prefix: string, engine: StoreEngine = "sqlite"): void {
  let dir = "";
  let url = "";
  beforeAll(() => {
    if (engine === "postgresql") {
      url = tempPgStoreUrl(prefix);
      process.env.IC_DB = url;
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `ic-${prefix}-`));
      process.env.IC_DB = path.join(dir, "studio.db");
    }
  });
  afterAll(async () => {
    await closeStore().catch(() => {});
    if (url) await dropPgSchema(url);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
}
