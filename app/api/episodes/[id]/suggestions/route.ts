import { NextResponse, type NextRequest } from "next/server";
import { listTurnWindowByEpisode } from "@/lib/db/viewer-queries";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { parseInput } from "@/lib/http/respond";
import { suggestTagsOnPage } from "@/lib/failures/suggest-tags";
import { episodeParamsSchema, suggestionsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/episodes/:id/suggestions?from=i&limit=n: tags suggested on one page of turns (the
 * replay's window) and on the episode, minus those a person already accepted or rejected. Reads
 * the header and the page (and the turn before it), never every turn: the detectors' hits come as
 * the store holds them. 409 while the task is sealed.
 */
export function GET(req: NextRequest, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "tag suggestions (they read the rewards)", async (data) => {
    const q = parseInput(suggestionsQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const at = Math.max(0, q.from - 1);
    const read = await listTurnWindowByEpisode({ episodeId: data.episode.id, from: at, limit: q.limit + (q.from - at), cut: null });
    const before = q.from > 0 && read.turns[0]?.index === at ? read.turns[0] : null;
    const turns = read.turns.filter((t) => t.index >= q.from);
    const decided = new Set(data.annotations.filter((a) => a.kind === "tag" && a.source === "person").map((a) => `${a.tag}@${a.turnIndex}`));
    const suggestions = suggestTagsOnPage({ episode: data.episode, turns, before, lastIndex: data.turnCount - 1, stored: data.annotations });
    return NextResponse.json({ from: q.from, suggestions: suggestions.filter((s) => !decided.has(`${s.tag}@${s.turnIndex}`)) });
  });
}
