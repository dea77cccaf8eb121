import "server-only";
import { ConflictError } from "@/lib/errors";
import { createRun, getRunByName, updateRunStatus } from "@/lib/db/runs";
import { listRunEpisodeOutcomes, markRunEpisodesInterrupted, setRunCounts } from "@/lib/db/run-episodes";
import type { EvalConfig, EvalSummary, RunStore } from "./run-eval";

const FINISHED = new Set(["submitted", "abandoned", "error"]);
const CONFIG_KEYS: (keyof EvalConfig)[] = ["env", "dataset", "model", "policy", "turns", "handicap", "refineTurns", "profile"];

/** Batch runs on the Studio's store. */
export function dbRunStore(): RunStore {
  return {
    async openRun(name, config, total) {
      const existing = await getRunByName({ name });
      if (!existing) {
        const run = await createRun({ name, config, total });
        return { id: run.id, resumed: false };
      }
      const stored = JSON.parse(existing.config) as Partial<EvalConfig>;
      const diff = CONFIG_KEYS.filter((k) => stored[k] !== config[k]);
      if (diff.length > 0) {
        const detail = diff.map((k) => `${k} ${JSON.stringify(stored[k])} ≠ ${JSON.stringify(config[k])}`).join(", ");
        throw new ConflictError(`run ${JSON.stringify(name)} exists with another configuration (${detail}); pick another --run name`);
      }
      await markRunEpisodesInterrupted({ runId: existing.id });
      return { id: existing.id, resumed: true };
    },
    async finishedTaskIds(runId) {
      const eps = await listRunEpisodeOutcomes({ runId });
      return new Set(eps.filter((e) => FINISHED.has(e.status)).map((e) => e.taskId));
    },
    async updateRun(runId, patch) {
      if (patch.status) await updateRunStatus({ id: runId, status: patch.status });
      if (patch.total !== undefined || patch.done !== undefined || patch.solved !== undefined || patch.errors !== undefined) {
        await setRunCounts({ id: runId, total: patch.total, done: patch.done, solved: patch.solved, errors: patch.errors });
      }
    },
    async summarizeRun(runId, name) {
      const latest = new Map<string, Awaited<ReturnType<typeof listRunEpisodeOutcomes>>[number]>();
      for (const e of await listRunEpisodeOutcomes({ runId })) if (FINISHED.has(e.status)) latest.set(e.taskId, e);
      return summarize(name, [...latest.values()]);
    },
  };
}

/**
 * The paper's measures over finished episodes: success rate (reward 1.0 reached), mean turns, and
 * error rate (each episode's share of actions that failed to run, then the mean over episodes).
 */
export function summarize(
  run: string,
  episodes: { status: string; success: boolean; turnCount: number; invalidCount: number; checkedCount: number }[],
): EvalSummary & { providerErrors: number } {
  const n = episodes.length;
  const solved = episodes.filter((e) => e.success).length;
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    run,
    episodes: n,
    solved,
    successRate: n ? solved / n : 0,
    meanTurns: mean(episodes.map((e) => e.turnCount)),
    errorRate: mean(episodes.map((e) => (e.checkedCount > 0 ? e.invalidCount / e.checkedCount : 0))),
    providerErrors: episodes.filter((e) => e.status === "error").length,
  };
}
