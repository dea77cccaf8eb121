import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisode } from "@/lib/http/episode-route";
import { createViewerEnvironment, replayLoopForEpisode, taskForEpisode } from "@/lib/replay/episode-task";
import { checkEpisodeReplay } from "@/lib/replay/replay-check";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/recheck: replays the recorded actions in a fresh sandbox with the loop that recorded them (imported InterCode episodes under profile intercode) and marks the turns that differ; 409 while the task is sealed. */
export function POST(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisode(ctx, episodeParamsSchema, "a recheck (it scores the turns)", async (data) => {
    const task = taskForEpisode(data.episode);
    const loop = replayLoopForEpisode(data.episode);
    const env = await createViewerEnvironment(task.env, undefined, loop.profile);
    return NextResponse.json(await checkEpisodeReplay({ task, turns: data.turns, finalReward: data.episode.reward, env, loop }));
  });
}
