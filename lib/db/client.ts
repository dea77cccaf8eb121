import "server-only";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "./generated/client";
import { BUSY_TIMEOUT_MS, closeRawDb, dbPath, getRawDb } from "./sqlite";
import { toStorageError } from "./storage-error";

type Holder = { prisma?: Promise<PrismaClient>; path?: string };
const holder: Holder = ((globalThis as Record<string, unknown>).__icStudioPrisma ??= {}) as Holder;

async function connect(file: string): Promise<PrismaClient> {
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

/**
 * The Prisma client singleton (one per process and database file), on the better-sqlite3 adapter.
 * The first call migrates the database. Only lib/db may call this.
 */
export function getPrisma(): Promise<PrismaClient> {
  const file = dbPath();
  if (!holder.prisma || holder.path !== file) {
    holder.path = file;
    holder.prisma = connect(file).catch((err) => {
      holder.prisma = undefined;
      throw err;
    });
  }
  return holder.prisma;
}

/** Disconnects the client and the raw connection (tests, shutdown). */
export async function closeStore(): Promise<void> {
  const p = holder.prisma;
  holder.prisma = undefined;
  holder.path = undefined;
  if (p) await (await p.catch(() => undefined))?.$disconnect();
  closeRawDb();
}

/** Runs a Prisma unit of work, mapping storage failures (read-only file, full disk) to StorageError. */
export async function withPrisma<T>(fn: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const prisma = await getPrisma();
  try {
    return await fn(prisma);
  } catch (err) {
    throw toStorageError(err, holder.path ?? dbPath());
  }
}
