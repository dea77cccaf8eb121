import "server-only";
import { readServerConfig } from "@/lib/server/config";
import type { RunContext } from "./run-manager";

/** The run manager's settings in this server: the sandbox cap and backend it was started with. */
export function serverRunContext(): RunContext {
  const c = readServerConfig();
  return { maxSandboxes: c.maxSandboxes, envOptions: { backend: c.backend, sqlUrl: process.env.IC_SQL_URL || undefined } };
}
