import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { closeStore } from "./client";
import { closeRawDb } from "./sqlite";

/**
 * For a test file: a fresh store in a temporary directory (IC_DB) for all its tests, closed and
 * removed after them.
 */
export function useTempStore(prefix: string): void {
  let dir = "";
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `ic-${prefix}-`));
    process.env.IC_DB = path.join(dir, "studio.db");
  });
  afterAll(async () => {
    await closeStore().catch(() => {});
    closeRawDb();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
