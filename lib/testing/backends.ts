import "server-only";
import path from "node:path";
import { config } from "@/lib/config";
import { parseDatasetFile } from "@/lib/datasets/formats";
import type { Task } from "@/lib/datasets/types";
import { getSandboxBackend } from "@/lib/sandbox";

/**
 * The sandbox backends environment tests run on: local always; docker when its engine and images
 * answer. With IC_REQUIRE_DOCKER=1 (CI) a missing docker is an error, not a skip.
 */
export async function backendsUnderTest(): Promise<("local" | "docker")[]> {
  const out: ("local" | "docker")[] = ["local"];
  const docker = await getSandboxBackend("docker").catch((err: Error) => ({ available: async () => ({ ok: false as const, reason: err.message }) }));
  const ok = await docker.available();
  if (ok.ok) out.push("docker");
  else if (config().requireDocker) throw new Error(`IC_REQUIRE_DOCKER=1 but the docker backend cannot run: ${ok.reason}`);
  return out;
}

/** One task of InterCode's shared task files (../shared/intercode), for tests. */
export function sharedTask(rel: string, dataset: string, id: string): Task {
  const t = parseDatasetFile(path.join(config().sharedIntercodeDir, rel), { dataset }).find((x) => x.id === id);
  if (!t) throw new Error(`no task ${id} in ${rel}`);
  return t;
}
