import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisode } from "@/lib/server/episode-route";
import { taskForEpisode } from "@/lib/viewer/episode-task";
import { getGoldOutput } from "@/lib/viewer/gold";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/gold: gold's solution and output for the episode's task (run once in a fresh sandbox, then cached); 409 while the task is sealed. */
export function POST(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisode(ctx, episodeParamsSchema, "the gold solution", async (data) => NextResponse.json(await getGoldOutput(taskForEpisode(data.episode))));
}
