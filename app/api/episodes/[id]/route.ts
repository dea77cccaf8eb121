import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { WINDOW_TURNS } from "@/lib/db/replay-window";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/episodes/:id: the episode's header (episode, annotations, lineage), its turn count, the
 * reward curve's aggregate and the first window of turns; the rest from /api/episodes/:id/turns.
 * 409 while its task is sealed by a baseline episode.
 */
export function GET(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "reading this episode", (data) => NextResponse.json(data), WINDOW_TURNS);
}
