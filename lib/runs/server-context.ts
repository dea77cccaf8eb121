import "server-only";
import { config } from "@/lib/config";
import type { RunContext } from "./run-manager";

/** The run manager's settings in this server: the sandbox cap and backend it was started with. */
export function serverRunContext(): RunContext {
  const { maxSandboxes, backend, sqlUrl } = config();
  return { maxSandboxes, envOptions: { backend, sqlUrl } };
}
