import "server-only";
import type { Config } from "@/lib/config";
import { createEnvironment } from "@/lib/env";
import { initStore } from "@/lib/db/startup";
import { findSeal, sealMessage } from "@/lib/studies/baseline-seal";
import { dbRecorder, readStoredEpisode } from "@/lib/episodes/db-recorder";
import { LiveEpisodeManager } from "./live-episodes";
import { episodeFeedback, getStudy } from "@/lib/studies/studies";
import { publicTask, resolveTask } from "@/lib/tasks/tasks";
import { goldShown } from "@/lib/episodes/gold";
import { appendRecordingChunk } from "@/lib/db/recordings";
import { DEFAULT_RECORDING_MAX_BYTES } from "@/lib/recording/events";

/** Opens the store (applying pending migrations) and marks episodes left running by a previous process interrupted. */
export async function prepareStore(): Promise<number> {
  return (await initStore()).interrupted;
}

/** The live episode manager on the real store, task sets and environments. */
export function createLiveEpisodeManager(
  config: Pick<Config, "idleMs" | "maxSandboxes" | "backend"> & Partial<Pick<Config, "sqlUrl" | "recordingMaxBytes">>,
): LiveEpisodeManager {
  return new LiveEpisodeManager({
    recorder: dbRecorder(),
    readEpisode: readStoredEpisode,
    resolveTask: async (env, ref) => resolveTask(env, ref),
    publicTask,
    goldText: goldShown,
    createEnvironment: (env) => createEnvironment(env, { backend: config.backend, sqlUrl: config.sqlUrl }),
    idleMs: config.idleMs,
    maxSandboxes: config.maxSandboxes,
    backendName: config.backend,
    appendRecording: (episodeId, chunk) => appendRecordingChunk({ episodeId, chunk, maxBytes: config.recordingMaxBytes ?? DEFAULT_RECORDING_MAX_BYTES }),
    sealedBy: async (task, what, exceptId, studyId) => {
      const key = { environment: task.env, dataset: task.dataset, taskId: task.id };
      // Only a submit passes its study: the gold after submit, when that study shows it.
      const own = studyId ? await getStudy(studyId) : null;
      const seal = await findSeal(key, exceptId, { exceptStudy: own?.config.showGoldAfterSubmit ? own.id : null });
      return seal ? sealMessage(key, seal, what) : null;
    },
    studyConditions: async (studyId) => {
      const s = await getStudy(studyId);
      return s
        ? { env: s.config.env, dataset: s.config.dataset, tasks: s.config.tasks, feedback: episodeFeedback(s.config.feedback), turnLimit: s.config.turnLimit }
        : null;
    },
  });
}
