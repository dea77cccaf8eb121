import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisode } from "@/lib/http/episode-route";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/episodes/:id: the replay data (episode, turns, annotations, lineage); 409 while its task is sealed by a baseline episode. */
export function GET(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisode(ctx, episodeParamsSchema, "reading this episode", (data) => NextResponse.json(data));
}
