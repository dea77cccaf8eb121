import "server-only";
import { appendTurn, createEpisode, finishEpisode, getEpisodeById, resumeEpisode } from "@/lib/db/episodes";
import type { EnvName } from "@/lib/datasets/types";
import type { RewardBreakdown } from "@/lib/reward/types";
import type { EpisodeStore, StoredEpisode } from "./episode-store";

function parseBreakdown(raw: string | null): RewardBreakdown | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as RewardBreakdown;
  } catch {
    return null;
  }
}

/** The live episode manager's store, on lib/db (SQLite through Prisma). Player episodes are human ones. */
export const dbEpisodeStore: EpisodeStore = {
  async createEpisode(e) {
    const ep = await createEpisode({
      id: e.id,
      environment: e.env,
      dataset: e.dataset,
      taskId: e.taskId,
      taskIndex: e.taskIndex,
      query: e.query,
      gold: e.gold,
      playerKind: "human",
      annotator: e.annotator,
      turnLimit: e.turnLimit,
      mode: e.mode,
      feedback: e.feedback,
      backend: e.backend,
      hardness: e.hardness,
      db: e.db,
      studyId: e.studyId,
    });
    return { id: ep.id };
  },
  async appendTurn(episodeId, t) {
    await appendTurn({
      episodeId,
      turn: {
        index: t.index,
        actor: "human",
        action: t.action,
        observation: t.observation,
        ok: t.ok,
        reward: t.reward,
        durationMs: t.durationMs,
        source: t.source,
        timedOut: t.timedOut,
        aborted: t.aborted,
        startedAt: new Date(t.startedAt),
      },
    });
  },
  async finishEpisode(episodeId, result) {
    await finishEpisode({
      episodeId,
      outcome:
        result.status === "submitted"
          ? { status: "submitted", reward: result.reward, breakdown: result.breakdown, goldObservation: result.goldObservation, agentObservation: result.agentObservation }
          : result,
    });
  },
  async reopenEpisode(episodeId) {
    await resumeEpisode({ id: episodeId });
  },
  async getEpisodeById(episodeId): Promise<StoredEpisode | null> {
    const ep = await getEpisodeById({ id: episodeId });
    if (!ep) return null;
    return {
      id: ep.id,
      env: ep.environment as EnvName,
      dataset: ep.dataset,
      taskId: ep.taskId,
      status: ep.status as StoredEpisode["status"],
      mode: ep.mode === "baseline" ? "baseline" : "play",
      feedback: ep.feedback === "reward" ? "reward" : "none",
      turnLimit: ep.turnLimit,
      annotator: ep.annotator,
      studyId: ep.studyId,
      reward: ep.reward,
      breakdown: parseBreakdown(ep.breakdown),
      goldObservation: ep.goldObservation,
      agentObservation: ep.agentObservation,
      firstActionAt: ep.firstActionAt ? ep.firstActionAt.getTime() : null,
      endedAt: ep.endedAt ? ep.endedAt.getTime() : null,
      turns: ep.turns.map((t) => ({
        index: t.index,
        action: t.action,
        source: t.source ?? "console",
        observation: t.observation,
        ok: t.ok ?? true,
        reward: t.reward,
        startedAt: t.startedAt ? t.startedAt.getTime() : t.createdAt.getTime(),
        durationMs: t.durationMs ?? 0,
        timedOut: t.timedOut,
        aborted: t.aborted,
      })),
    };
  },
};
