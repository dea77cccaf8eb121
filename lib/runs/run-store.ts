import "server-only";
import { ConflictError } from "@/lib/errors";
import { createRun, getRunByName, recordRunEpisode, updateRunStatus } from "@/lib/db/runs";
import { listRunEpisodeOutcomes, markRunEpisodesInterrupted, setRunCounts } from "@/lib/db/run-episodes";
import { computeStats } from "@/lib/stats/measures";
import type { RunStore } from "./run-eval";
import { RUN_IDENTITY_KEYS, type RunIdentity } from "./launch-options";
import { isFinishedStatus } from "@/lib/db/episode-status";

/** Batch runs on the Studio's store. */
export function dbRunStore(): RunStore {
  return {
    async openRun(name, config, total) {
      const existing = await getRunByName({ name });
      if (!existing) {
        const run = await createRun({ name, config, total });
        return { id: run.id, resumed: false };
      }
      const stored = JSON.parse(existing.config) as Partial<RunIdentity>;
      const diff = RUN_IDENTITY_KEYS.filter((k) => stored[k] !== config[k]);
      if (diff.length > 0) {
        const detail = diff.map((k) => `${k} ${JSON.stringify(stored[k])} ≠ ${JSON.stringify(config[k])}`).join(", ");
        throw new ConflictError(`run ${JSON.stringify(name)} exists with another configuration (${detail}); pick another --run name`);
      }
      await markRunEpisodesInterrupted({ runId: existing.id });
      return { id: existing.id, resumed: true };
    },
    async finishedTaskIds(runId) {
      const eps = await listRunEpisodeOutcomes({ runId });
      return new Set(eps.filter((e) => isFinishedStatus(e.status)).map((e) => e.taskId));
    },
    async updateRun(runId, patch) {
      if (patch.status) await updateRunStatus({ id: runId, status: patch.status });
      if (patch.total !== undefined || patch.done !== undefined || patch.solved !== undefined || patch.errors !== undefined) {
        await setRunCounts({ id: runId, total: patch.total, done: patch.done, solved: patch.solved, errors: patch.errors });
      }
    },
    async addEpisode(runId, episode) {
      const run = await recordRunEpisode({ id: runId, ...episode });
      return { done: run.done, solved: run.solved, errors: run.errors };
    },
    async summarizeRun(runId, name) {
      // The run's finished episodes (one per task: a resume plays only the tasks left), measured
      // by the one function of the paper's measures, as `icstudio stats` and the runs page are.
      const [all] = (await computeStats({ filters: { runId }, groupBy: [] })).groups;
      const outcomes = await listRunEpisodeOutcomes({ runId });
      return {
        run: name,
        episodes: all?.episodes ?? 0,
        solved: all?.solved ?? 0,
        successRate: all?.successRate ?? 0,
        meanTurns: all?.meanTurns ?? 0,
        errorRate: all?.errorRate ?? null,
        providerErrors: outcomes.filter((e) => e.status === "error").length,
      };
    },
  };
}
