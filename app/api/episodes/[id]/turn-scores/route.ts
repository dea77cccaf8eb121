import { NextResponse, type NextRequest } from "next/server";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { parseInput } from "@/lib/http/respond";
import { getTurnScores } from "@/lib/replay/turn-scores";
import { episodeParamsSchema, turnScoresQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * POST /api/episodes/:id/turn-scores?from=i&limit=n[&curve=1]: one page of the turns' scores: each
 * turn's would-be reward (recorded, else replayed in a fresh sandbox once and cached), whether its
 * output equals gold's, and SQL column names; `curve=1` adds the replayed rewards' aggregate for the
 * reward curve. Reads the episode's header and the page, never every turn (but for the one replay).
 * 409 while the task is sealed.
 */
export function POST(req: NextRequest, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "the turns' rewards", async (data) => {
    const q = parseInput(turnScoresQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    return NextResponse.json(await getTurnScores({ header: data, from: q.from, limit: q.limit, curve: q.curve === "1" }));
  });
}
