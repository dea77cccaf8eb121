import "server-only";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { MODEL_FIELDS_EMPTY } from "@/lib/episodes/turn";
import { getReplayHeaderById, listTurnWindowByEpisode } from "@/lib/db/viewer-queries";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { isSubmit } from "@/lib/env/submit";
import { playUrl } from "@/lib/tasks/task-ref";
import { taskForEpisode } from "./episode-task";

/**
 * "Continue from turn k": a new running episode (parentEpisodeId, branchTurn = k) holding copies
 * of the parent's first k actions. The playground opens it with `?episode=<id>` and, as with any
 * episode not live in this process, replays the stored actions into a fresh sandbox before play
 * goes on (lib/live/live-episodes.ts resume). Returns the new id and the playground URL.
 */
export async function createBranchEpisode({
  episodeId,
  turn,
  annotator,
}: {
  episodeId: string;
  turn: number;
  annotator: string;
}): Promise<{ id: string; href: string }> {
  // The header and the first k turns only (the copies), not the turns after them.
  const parent = await getReplayHeaderById({ id: episodeId, size: 0 });
  if (!parent) throw new NotFoundError(`episode ${episodeId}`);
  if (!Number.isInteger(turn) || turn < 0 || turn > parent.turnCount) throw new BadInputError(`must be 0..${parent.turnCount}`, "turn");
  const kept = turn > 0 ? (await listTurnWindowByEpisode({ episodeId, from: 0, limit: turn, cut: null })).turns : [];
  if (kept.some((t) => isSubmit(t.action))) throw new BadInputError("the first turns already hold a submit: branch from an earlier turn", "turn");
  const task = taskForEpisode(parent.episode);
  const recorder = dbRecorder();
  const id = await recorder.startEpisode({
    task,
    env: task.env,
    player: { kind: "human", annotator },
    turnLimit: Math.max(parent.episode.turnLimit, turn + 1),
    mode: "play",
    feedback: "reward",
    parent: { episodeId, turn },
  });
  // The kept turns are copies of the parent's (source "replay"), written like any other turn.
  for (const { observationChars: _, ...t } of kept) {
    await recorder.appendTurn(id, {
      ...MODEL_FIELDS_EMPTY,
      ...t,
      actor: t.actor === "model" ? "model" : "human",
      source: "replay",
      ok: t.ok ?? true,
      // The parent's model calls are not paid again.
      costUsd: null,
      durationMs: t.durationMs ?? 0,
      startedAt: new Date(),
    });
  }
  return { id: id, href: `${playUrl(task.env, task.dataset, task.id)}?episode=${encodeURIComponent(id)}` };
}
