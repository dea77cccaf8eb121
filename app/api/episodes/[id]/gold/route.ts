import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { taskForEpisode } from "@/lib/replay/episode-task";
import { getGoldOutput } from "@/lib/replay/gold-output";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/gold: gold's solution and output for the episode's task (run once in a fresh sandbox, then cached); 409 while the task is sealed. */
export function POST(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "the gold solution", async (data) => NextResponse.json(await getGoldOutput(taskForEpisode(data.episode))));
}
