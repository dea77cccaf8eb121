import "server-only";
import type pg from "pg";
import { redactStoreUrl } from "@/lib/config";
import { StorageError } from "@/lib/errors";
import { checkAppliedMigrations, readMigrations } from "./migrate";

/**
 * A PostgreSQL store's connection: the URL less Prisma's `?schema=` parameter, and that schema
 * (public by default), which both the raw pool (search_path) and the Prisma adapter use.
 */
export function pgConnection(url: string): { connectionString: string; schema: string } {
  const u = new URL(url);
  const schema = u.searchParams.get("schema") ?? "public";
  u.searchParams.delete("schema");
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema))
    throw new StorageError(`the schema ${JSON.stringify(schema)} in ${redactStoreUrl(url)} must be letters, digits and _`);
  return { connectionString: u.toString(), schema };
}

/**
 * Raw rows read the same on both engines: counts and sums as numbers (not bigint strings),
 * booleans as 1/0 and timestamps as Unix milliseconds, as better-sqlite3 gives them.
 */
const typesOf = (lib: typeof pg) =>
  ({
    getTypeParser(oid: number, format?: "text" | "binary") {
      switch (oid) {
        case 20: // int8
        case 1700: // numeric
          return (v: string) => Number(v);
        case 16: // bool
          return (v: string) => (v === "t" ? 1 : 0);
        case 1114: // timestamp (UTC, as Prisma writes it)
          return (v: string) => Date.parse(v.replace(" ", "T") + "Z");
        case 1184: // timestamptz
          return (v: string) => Date.parse(v);
        default:
          return lib.types.getTypeParser(oid, format as "text");
      }
    },
  }) as pg.CustomTypesConfig;

/**
 * A pool on the store's database with its schema on the search path, and its error mapping. The
 * driver loads here, on first use: a SQLite store never pays for it (a quarter second of every
 * CLI command's start-up). JIT compilation is off: the server compiles any statement whose
 * estimated cost passes jit_above_cost, and the list's statements are priced on what they might
 * read (a count's sample that runs only past 10,000 matches), not what they do; compiling one
 * took 0.1-2 s where running it took 5-40 ms.
 */
export async function openPgPool(url: string, { max = 8 } = {}): Promise<pg.Pool> {
  const { connectionString, schema } = pgConnection(url);
  const { default: lib } = await import("pg");
  const pool = new lib.Pool({ connectionString, max, connectionTimeoutMillis: 10_000, options: `-c search_path="${schema}" -c jit=off`, types: typesOf(lib) });
  // An idle client's error (the server restarted) must not crash the process; the next query reports it.
  pool.on("error", () => {});
  return pool;
}

/** A connection failure as a StorageError naming the store (password redacted). */
export function pgConnectError(url: string, err: unknown): StorageError {
  const e = err as { code?: string; message?: string };
  const why =
    e.code === "ECONNREFUSED"
      ? "nothing listens there"
      : e.code === "ENOTFOUND" || e.code === "EAI_AGAIN"
        ? "the host name does not resolve"
        : e.code === "28P01" || e.code === "28000"
          ? "the server refused the user or password"
          : e.code === "3D000"
            ? "the database does not exist"
            : (e.message ?? String(err)).slice(0, 200);
  return new StorageError(`cannot reach the store ${redactStoreUrl(url)}: ${why}`, { store: redactStoreUrl(url), code: e.code ?? null }, { cause: err });
}

const LEDGER = `CREATE TABLE IF NOT EXISTS "_studio_migrations" (
  "name" TEXT NOT NULL PRIMARY KEY,
  "checksum" TEXT NOT NULL,
  "appliedAt" BIGINT NOT NULL
)`;
/** Held while migrating, so two processes starting at once apply each migration once. */
const MIGRATION_LOCK = 7_351_042;

/**
 * Applies pending PostgreSQL migrations (prisma/migrations-postgresql), each in its own
 * transaction with its ledger row, under an advisory lock; the same refusals as the SQLite
 * runner (lib/db/migrate.ts): an applied migration edited since, or one this code does not know.
 * Creates the schema named in the URL when missing. Returns the names applied now.
 */
export async function applyPgMigrations(pool: pg.Pool, dir: string, schema: string): Promise<string[]> {
  const files = readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SELECT pg_advisory_lock($1)`, [MIGRATION_LOCK]);
    try {
      await client.query(LEDGER);
      const applied = (await client.query<{ name: string; checksum: string }>(`SELECT "name", "checksum" FROM "_studio_migrations"`)).rows;
      checkAppliedMigrations(files, applied);
      const done = new Set(applied.map((r) => r.name));
      const now: string[] = [];
      for (const file of files) {
        if (done.has(file.name)) continue;
        await client.query("BEGIN");
        try {
          await client.query(file.sql);
          await client.query(`INSERT INTO "_studio_migrations" ("name", "checksum", "appliedAt") VALUES ($1, $2, $3)`, [file.name, file.checksum, Date.now()]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw new StorageError(`migration ${file.name} failed: ${(err as Error).message}`, undefined, { cause: err });
        }
        now.push(file.name);
      }
      return now;
    } finally {
      await client.query(`SELECT pg_advisory_unlock($1)`, [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
}

/** `url` with its `?schema=` set to `schema` (a test's or benchmark's own schema in a shared database). */
export function withPgSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return u.toString();
}

/** Drops a schema and everything in it (a test's or benchmark's own store). */
export async function dropPgSchema(url: string): Promise<void> {
  const { schema } = pgConnection(url);
  if (schema === "public") throw new StorageError("refusing to drop the public schema");
  const pool = await openPgPool(url, { max: 1 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
}
