import { StorageError, StudioError } from "@/lib/errors";

const PATTERNS: Array<{ test: RegExp; message: (path: string) => string }> = [
  {
    test: /SQLITE_READONLY|readonly database|read-only/i,
    message: (p) => `the database ${p} is read-only: check the file's and its folder's permissions (nothing was written)`,
  },
  {
    test: /SQLITE_FULL|database or disk is full|ENOSPC/i,
    message: (p) => `the disk holding ${p} is full: free some space and try again (nothing was written)`,
  },
  {
    test: /SQLITE_CANTOPEN|unable to open database/i,
    message: (p) => `cannot open the database ${p}: check that its folder exists and is writable`,
  },
  {
    test: /SQLITE_BUSY|database is locked/i,
    message: (p) => `the database ${p} stayed locked by another writer: try again`,
  },
  {
    test: /SQLITE_IOERR|disk I\/O error/i,
    message: (p) => `an I/O error on the database ${p} (disk full or failing?): nothing was written`,
  },
  {
    test: /SQLITE_CORRUPT|SQLITE_NOTADB|malformed|not a database/i,
    message: (p) => `the database ${p} is damaged or is not a SQLite file`,
  },
];

function describe(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e === "object") {
      const o = e as Record<string, unknown>;
      for (const k of ["code", "message", "originalCode", "originalMessage"]) if (typeof o[k] === "string") parts.push(o[k] as string);
      if (o.meta && typeof o.meta === "object") parts.push(JSON.stringify(o.meta));
      e = o.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(" | ");
}

/**
 * Turns a low-level SQLite or Prisma failure caused by the storage itself (read-only file, full
 * disk, lock, I/O error) into a StorageError with a message a user can act on. Anything else,
 * including StudioErrors, is returned unchanged.
 */
export function toStorageError(err: unknown, dbPath: string): unknown {
  if (err instanceof StudioError) return err;
  const text = describe(err);
  for (const p of PATTERNS) {
    if (p.test.test(text)) return new StorageError(p.message(dbPath), { dbPath, cause: text.slice(0, 500) }, { cause: err });
  }
  return err;
}
