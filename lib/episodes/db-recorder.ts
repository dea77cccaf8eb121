import "server-only";
import { appendTurn, createEpisode, finishEpisode, getEpisodeById, resumeEpisode } from "@/lib/db/episodes";
import { markEpisodeInterruptedById } from "@/lib/db/run-episodes";
import { appendTranscriptMessages } from "@/lib/db/transcripts";
import { detectEpisodeById } from "@/lib/failures/record";
import type { EnvName } from "@/lib/datasets/types";
import type { RewardBreakdown } from "@/lib/reward/types";
import { newEpisodeFromTask } from "./gold";
import { turnView } from "./turn";
import type { EpisodeRecorder } from "./recorder";
import type { StoredEpisode } from "./session";

/**
 * The failure detectors over an episode that just ended (live play and model runs alike). Its tags
 * are an analysis of the episode, not part of it: a failure to write them is logged, and the
 * episode's end stands (`icstudio failures --detect` writes them again).
 */
async function detectAtEnd(episodeId: string): Promise<void> {
  try {
    await detectEpisodeById({ episodeId });
  } catch (err) {
    console.error(`failure detectors on episode ${episodeId}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The recorder on the Studio's store (lib/db): where a turn of a played episode is written
 * (playground, model runs, branch), through the one turn writer (lib/db/turn-writer.ts) that the
 * bulk importer also writes imported logs with.
 */
export function dbRecorder(): EpisodeRecorder {
  return {
    async startEpisode(s) {
      const ep = await createEpisode({
        ...newEpisodeFromTask(s.task),
        id: s.id,
        playerKind: s.player.kind,
        annotator: s.player.kind === "human" ? s.player.annotator : null,
        model: s.player.kind === "model" ? s.player.model : null,
        policy: s.player.kind === "model" ? s.player.policy : null,
        turnLimit: s.turnLimit,
        mode: s.mode,
        feedback: s.feedback,
        backend: s.backend ?? null,
        runId: s.runId ?? null,
        studyId: s.studyId ?? null,
        parentEpisodeId: s.parent?.episodeId ?? null,
        branchTurn: s.parent?.turn ?? null,
      });
      return ep.id;
    },
    async appendTurn(episodeId, turn) {
      // A played turn is a turn record (lib/episodes/turn.ts), written as it is.
      await appendTurn({ episodeId, turn });
    },
    async finishEpisode(episodeId, end) {
      if (end.unclaimed) await appendTranscriptMessages({ episodeId, ...end.unclaimed });
      switch (end.status) {
        case "submitted":
          await finishEpisode({
            episodeId,
            outcome: {
              status: "submitted",
              reward: end.reward ?? 0,
              breakdown: end.breakdown,
              success: end.success,
              goldObservation: end.goldObservation ?? null,
              agentObservation: end.agentObservation ?? null,
              ...(end.turnsTaken !== undefined ? { turnsTaken: end.turnsTaken } : {}),
            },
          });
          return detectAtEnd(episodeId);
        case "abandoned":
          await finishEpisode({ episodeId, outcome: { status: "abandoned", reason: end.errorReason } });
          return detectAtEnd(episodeId);
        case "error":
          await finishEpisode({ episodeId, outcome: { status: "error", reason: end.errorReason ?? "unknown error" } });
          return detectAtEnd(episodeId);
        case "interrupted":
          await markEpisodeInterruptedById({ id: episodeId, reason: end.errorReason });
          return;
      }
    },
    async reopenEpisode(episodeId) {
      await resumeEpisode({ id: episodeId });
    },
  };
}

function parseBreakdown(raw: string | null): RewardBreakdown | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as RewardBreakdown;
  } catch {
    return null;
  }
}

/** A stored episode as a session resumes it (its turns replayed into a fresh sandbox). */
export async function readStoredEpisode(id: string): Promise<StoredEpisode | null> {
  const ep = await getEpisodeById({ id });
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
    // Turns stored before the actors, sources and outcomes were always written read as a person's, typed at the console, run.
    turns: ep.turns.map((t) => {
      const actor = t.actor === "model" ? "model" : "human";
      return { ...turnView({ ...t, actor, source: t.source ?? "console", ok: t.ok ?? true }), actor };
    }),
  };
}
