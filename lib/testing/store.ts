import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { config } from "@/lib/config";

/** The shared InterCode data (IC_INTERCODE_DIR, else ../shared/intercode from the repo root). */
export function intercodeDir(): string {
  return config().sharedIntercodeDir;
}

/** A fresh database file for a test (sets IC_DB). */
export function useFreshDb(prefix: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `ic-${prefix}-`)), "studio.db");
  process.env.IC_DB = file;
  return file;
}
