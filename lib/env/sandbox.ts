import "server-only";
import { getSandboxBackend } from "@/lib/sandbox";
import type { Sandbox, SandboxSpec } from "@/lib/sandbox/types";
import type { EnvironmentOptions } from "./types";

/** Creates a sandbox on the backend the options ask for ("auto" picks docker when it can run, else local). */
export async function openSandbox(spec: SandboxSpec, options: EnvironmentOptions = {}): Promise<Sandbox> {
  const backend = await getSandboxBackend(options.backend ?? "auto");
  return backend.create({ ...spec, limits: { ...options.limits, ...spec.limits } });
}
