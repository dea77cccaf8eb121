import { NextResponse } from "next/server";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { createViewerEnvironment, taskForEpisode } from "@/lib/viewer/episode-task";
import { parseInput, respond } from "@/lib/viewer/http";
import { checkEpisodeReplay } from "@/lib/viewer/replay-check";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/recheck: replays the recorded actions in a fresh sandbox and marks the turns that differ. */
export function POST(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(episodeParamsSchema, await ctx.params, "path");
    const data = getReplayDataById({ id });
    if (!data) throw new NotFoundError(`episode ${id}`);
    const task = taskForEpisode(data.episode);
    const env = await createViewerEnvironment(task.env);
    const check = await checkEpisodeReplay({ task, turns: data.turns, finalReward: data.episode.reward, env });
    return NextResponse.json(check);
  });
}
