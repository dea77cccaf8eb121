import "server-only";
import { createEnvironment } from "@/lib/env";
import { getRawDb } from "@/lib/db/sqlite";
import { markInterruptedEpisodes } from "@/lib/db/episodes";
import type { ServerConfig } from "./config";
import { dbEpisodeStore } from "./db-store";
import { LiveEpisodeManager } from "./live-episodes";
import { goldText, publicTask, resolveTask } from "./tasks";

/** Opens the store (applying pending migrations) and marks episodes left running by a previous process interrupted. */
export async function prepareStore(): Promise<number> {
  getRawDb();
  return markInterruptedEpisodes();
}

/** The live episode manager on the real store, task sets and environments. */
export function createLiveEpisodeManager(config: Pick<ServerConfig, "idleMs" | "maxSandboxes" | "backend">): LiveEpisodeManager {
  return new LiveEpisodeManager({
    store: dbEpisodeStore,
    resolveTask: async (env, ref) => resolveTask(env, ref),
    publicTask,
    goldText,
    createEnvironment: (env) => createEnvironment(env, { backend: config.backend, sqlUrl: process.env.IC_SQL_URL || undefined }),
    idleMs: config.idleMs,
    maxSandboxes: config.maxSandboxes,
    backendName: config.backend,
  });
}
