import { NextResponse, type NextRequest } from "next/server";
import { listTurnReplaysByEpisode } from "@/lib/db/turn-replays";
import { listTurnWindowByEpisode } from "@/lib/db/viewer-queries";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { parseInput } from "@/lib/http/respond";
import { episodeParamsSchema, turnsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/episodes/:id/turns?from=i&limit=n&cut=c[&full=1]: the replay's paged turns, a cursor
 * over turn indices; each observation cut to `cut` characters with its whole length beside it
 * (`full=1`: one turn, whole). Answers `{ from, turns, turnCount, wouldBe }` (`wouldBe`: the
 * page's would-be rewards by turn index, when a replay is cached); 409 while the task is sealed.
 */
export function GET(req: NextRequest, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "the turns", async (data) => {
    const q = parseInput(turnsQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const window = await listTurnWindowByEpisode({ episodeId: data.episode.id, from: q.from, limit: q.limit, cut: q.full ? null : q.cut });
    // The page's would-be rewards, when a replay of the episode is cached (the replay page computes it).
    const replayed = await listTurnReplaysByEpisode({ episodeId: data.episode.id, from: q.from, limit: q.limit });
    return NextResponse.json({ ...window, turnCount: data.turnCount, wouldBe: Object.fromEntries(replayed.map((r) => [r.index, r.reward])) });
  });
}
