import "server-only";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { config } from "@/lib/config";
import { StorageError } from "@/lib/errors";

/**
 * API keys entered in the models page. They live in one JSON file beside the store (the SQLite
 * file's folder), readable by the server's user only (mode 0600), and leave this module only to
 * make a provider client: no route, page, log line or error message carries a key.
 */

export const KEY_FILE_NAME = "model-keys.json";
/** Owner read and write, nobody else. */
export const KEY_FILE_MODE = 0o600;

const keyFileSchema = z.object({ keys: z.record(z.string(), z.string()) });

/** The folder the store lives in (IC_DB's folder, var/ by default; the data folder for a PostgreSQL store): the key file and added models sit there. */
export function storeDir(): string {
  const c = config();
  return c.store.kind === "sqlite" ? path.dirname(c.store.file) : c.dataDir;
}

export function keyFilePath(dir = storeDir()): string {
  return path.join(dir, KEY_FILE_NAME);
}

function readKeys(dir: string): Record<string, string> {
  const file = keyFilePath(dir);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new StorageError(`cannot read the key file ${file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
  const parsed = keyFileSchema.safeParse(safeJson(text));
  // Never echo the file's content: it holds secrets.
  if (!parsed.success) throw new StorageError(`the key file ${file} is not valid (expected {"keys": {"<model id>": "<key>"}})`);
  return parsed.data.keys;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Writes the whole file: a temporary file created with mode 0600, then renamed over the old one. */
function writeKeys(dir: string, keys: Record<string, string>): void {
  const file = keyFilePath(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.rmSync(tmp, { force: true });
    const fd = fs.openSync(tmp, "wx", KEY_FILE_MODE);
    try {
      fs.writeSync(fd, JSON.stringify({ keys }, null, 2) + "\n");
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // The umask cannot widen 0600, but a file made by hand could have been wider: set it exactly.
    fs.chmodSync(tmp, KEY_FILE_MODE);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new StorageError(`cannot write the key file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** The stored key of a model, if any (server-side use only: making the provider client). */
export function getStoredKey(modelId: string, dir = storeDir()): string | undefined {
  return readKeys(dir)[modelId];
}

/** Ids of the models with a stored key. */
export function listStoredKeyIds(dir = storeDir()): Set<string> {
  return new Set(Object.keys(readKeys(dir)));
}

/** Stores (or replaces) a model's key. */
export function setStoredKey(modelId: string, key: string, dir = storeDir()): void {
  writeKeys(dir, { ...readKeys(dir), [modelId]: key });
}

/** Forgets a model's key (no-op when there is none). */
export function deleteStoredKey(modelId: string, dir = storeDir()): void {
  const keys = readKeys(dir);
  if (!(modelId in keys)) return;
  delete keys[modelId];
  writeKeys(dir, keys);
}
