import "server-only";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { config } from "@/lib/config";

/** The repository root (two levels above this file). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The project's own task sets and file systems. */
export const DATASETS_DIR = path.join(REPO_ROOT, "datasets");

/** The writable state directory: `var/` in the repository, or IC_DATA_DIR. */
export function varDir(): string {
  return config().dataDir;
}

/** Where `icstudio datasets fetch intercode` puts InterCode's task sets (same layout as the published repository's data/). */
export function intercodeDataDir(): string {
  return path.join(varDir(), "datasets", "intercode");
}

/** The shared read-only copy of InterCode's data used by tests (`../shared/intercode`, or IC_INTERCODE_DIR). */
export function sharedIntercodeDir(): string {
  return config().sharedIntercodeDir;
}

/** Where the Spider databases converted to SQLite go after a fetch (`<db>.sqlite` and catalog.json). */
export function spiderSqliteDir(): string {
  return path.join(intercodeDataDir(), "sql", "spider", "sqlite");
}
