import { afterAll, beforeAll } from "vitest";
import { useTempStore } from "@/lib/testing/store";
import type { LiveEpisodeManager } from "@/lib/live/live-episodes";
import { createLiveEpisodeManager, prepareStore } from "@/lib/live/wiring";

/**
 * For a test file: the live episode manager on a fresh temporary store, the real task sets and
 * local sandboxes, shut down after the file's tests. Returns a getter (the manager exists once
 * beforeAll has run).
 */
export function useLiveEpisodeManager(prefix: string): () => LiveEpisodeManager {
  useTempStore(prefix);
  let manager: LiveEpisodeManager | null = null;
  beforeAll(async () => {
    await prepareStore();
    manager = createLiveEpisodeManager({ idleMs: 60_000, maxSandboxes: 4, backend: "local" });
  });
  afterAll(async () => {
    await manager?.shutdown();
  });
  return () => manager!;
}
