import fs from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { ensureBuild, startServer, type RunningServer } from "@/lib/testing/studio-server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dbPath: string;
  }
}

let server: RunningServer | null = null;

/**
 * Builds when needed (IC_E2E_BUILD=skip uses the existing build as it is), then starts one server
 * shared by the tests.
 */
export async function setup(project: TestProject) {
  if (process.env.IC_E2E_BUILD !== "skip") ensureBuild();
  // Tests keep their model configs under var/ (a fresh clone has none until a server writes there).
  fs.mkdirSync(path.join(__dirname, "..", "var"), { recursive: true });
  server = await startServer();
  project.provide("baseUrl", server.url);
  project.provide("dbPath", server.dbPath);
}

export async function teardown() {
  await server?.stop();
}
