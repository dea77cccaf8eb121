import "server-only";
import { getGoldCacheByTask, putGoldCache } from "@/lib/db/gold-cache";
import type { Task } from "@/lib/datasets/types";
import { createViewerEnvironment } from "./episode-task";
import type { GoldOutput } from "@/lib/viewer/view-types";
import { goldShown } from "@/lib/episodes/gold";
import { fidelityOf } from "@/lib/env/fidelity";
import { memoryRecorder } from "@/lib/episodes/memory-recorder";
import { EpisodeSession } from "@/lib/episodes/session";

const inflight = new Map<string, Promise<GoldOutput>>();

/**
 * Gold's output for `task`: from the store's gold cache, else computed once in a fresh sandbox
 * (an EpisodeSession submitted at once: the environment runs gold itself and reports
 * goldObservation) and cached.
 * Concurrent callers for one task share the run.
 */
export async function getGoldOutput(task: Task): Promise<GoldOutput> {
  const key = { environment: task.env, dataset: task.dataset, taskId: task.id };
  const hit = await getGoldCacheByTask(key);
  if (hit)
    return {
      gold: goldShown(task),
      observation: hit.observation,
      details: hit.details ? (JSON.parse(hit.details) as GoldOutput["details"]) : null,
      cached: true,
    };
  const k = `${task.env}\0${task.dataset}\0${task.id}`;
  let p = inflight.get(k);
  if (!p) {
    p = (async () => {
      // An episode submitted at once, in memory: the environment runs gold itself to score it.
      const session = await EpisodeSession.open({
        task,
        recorder: memoryRecorder(),
        start: { player: { kind: "human", annotator: null }, turnLimit: 1, mode: "play", feedback: "none" },
        environment: () => createViewerEnvironment(task.env),
        storeAt: "open",
      });
      try {
        const { result: r } = await session.submit(fidelityOf(task).goldRevealArg(task));
        const details = { breakdown: r.breakdown };
        await putGoldCache({ ...key, observation: r.goldObservation, details });
        return { gold: goldShown(task), observation: r.goldObservation, details, cached: false };
      } finally {
        await session.close();
        inflight.delete(k);
      }
    })();
    inflight.set(k, p);
  }
  return p;
}
