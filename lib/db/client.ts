import "server-only";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { config, type StoreTarget } from "@/lib/config";
import { PrismaClient } from "./generated/client";
import { PrismaClient as PrismaClientPg } from "./generated-pg/client";
import { pgConnection } from "./postgres";
import { closeSql, getPgPool, storeName } from "./sql";
import { BUSY_TIMEOUT_MS, getRawDb } from "./sqlite";
import { toStorageError } from "./storage-error";

type Holder = { prisma?: Promise<PrismaClient>; key?: string };
const holder: Holder = ((globalThis as Record<string, unknown>).__icStudioPrisma ??= {}) as Holder;

async function connect(store: StoreTarget): Promise<PrismaClient> {
  if (store.kind === "postgresql") {
    await getPgPool(store.url); // checks the server answers and applies pending migrations first
    const { connectionString, schema } = pgConnection(store.url);
    // Generated from the same schema.prisma (scripts/prisma-generate.mjs): the same models and
    // queries, so lib/db uses it through the SQLite client's type.
    return new PrismaClientPg({
      adapter: new PrismaPg({ connectionString, max: 8, options: `-c search_path="${schema}"` }, { schema }),
    }) as unknown as PrismaClient;
  }
  const file = store.file;
  getRawDb(); // opens the file and applies pending migrations first
  const adapter = new PrismaBetterSqlite3({ url: `file:${file}`, timeout: BUSY_TIMEOUT_MS }, { timestampFormat: "unixepoch-ms" });
  const prisma = new PrismaClient({ adapter });
  try {
    await prisma.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  } catch (err) {
    await prisma.$disconnect().catch(() => {});
    throw toStorageError(err, file);
  }
  return prisma;
}

/*
 * Two ways into the store, one for each direction: Prisma writes (create, update, upsert, delete,
 * typed against schema.prisma), the raw SQL layer reads (lib/db/sql.ts, every row parsed by its
 * table's row schema in lib/db/rows.ts, which TypeScript holds to the same generated models).
 * Raw SQL also writes where Prisma cannot or is too slow: the turn writer, bulk import, full-text
 * search, and transactions that read what they write (lib/db/sql.ts withSqlTransaction).
 */

/**
 * The Prisma client singleton (one per process and store): on better-sqlite3 for a file, on pg for
 * a postgresql:// IC_DB. The first call migrates the database. Only lib/db may call this.
 */
export function getPrisma(): Promise<PrismaClient> {
  const store = config().store;
  const key = store.kind === "sqlite" ? store.file : store.url;
  if (!holder.prisma || holder.key !== key) {
    holder.key = key;
    holder.prisma = connect(store).catch((err) => {
      holder.prisma = undefined;
      throw err;
    });
  }
  return holder.prisma;
}

/** Disconnects the client and the raw connections (tests, shutdown). */
export async function closeStore(): Promise<void> {
  const p = holder.prisma;
  holder.prisma = undefined;
  holder.key = undefined;
  if (p) await (await p.catch(() => undefined))?.$disconnect();
  await closeSql();
}

/** Runs a Prisma write, mapping storage failures (read-only file, full disk) to StorageError. Reads go through lib/db/sql.ts withSql. */
export async function withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const prisma = await getPrisma();
  try {
    return await fn(prisma);
  } catch (err) {
    throw toStorageError(err, storeName());
  }
}
