import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisode } from "@/lib/http/episode-route";
import { getTurnScores } from "@/lib/replay/turn-scores";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * POST /api/episodes/:id/turn-scores: every turn's would-be reward (recorded, else replayed in a
 * fresh sandbox once and cached), whether its output equals gold's, and SQL column names; 409 while
 * the task is sealed.
 */
export function POST(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisode(ctx, episodeParamsSchema, "the turns' rewards", async (data) => NextResponse.json(await getTurnScores(data)));
}
