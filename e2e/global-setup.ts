import type { TestProject } from "vitest/node";
import { ensureBuild, startServer, type RunningServer } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dbPath: string;
  }
}

let server: RunningServer | null = null;

/** Builds when needed, then starts one server shared by the tests. */
export async function setup(project: TestProject) {
  ensureBuild();
  server = await startServer();
  project.provide("baseUrl", server.url);
  project.provide("dbPath", server.dbPath);
}

export async function teardown() {
  await server?.stop();
}
