import fs from "node:fs";
import path from "node:path";
import { ensureBuild, ROOT } from "@/lib/testing/studio-server";

/**
 * Makes sure the app is built (server.ts runs it in production mode). An existing build is used
 * as it is unless IC_HARDENING_BUILD=1 (which rebuilds when sources are newer).
 */
export function ensureApp(): void {
  if (process.env.IC_HARDENING_BUILD !== "1" && fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) return;
  ensureBuild();
}

/**
 * Whether the server tests can run: an existing production build, or IC_HARDENING_BUILD=1 (build
 * first). Without either they are skipped and the summary table says so.
 */
export function appAvailable(): boolean {
  return process.env.IC_HARDENING_BUILD === "1" || fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"));
}
