import { NextResponse, type NextRequest } from "next/server";
import { turnTranscript } from "@/lib/agent/transcript";
import { listTranscriptMessagesByEpisode } from "@/lib/db/transcripts";
import { listTurnWindowByEpisode } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { parseInput } from "@/lib/http/respond";
import { episodeParamsSchema, transcriptQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/episodes/:id/transcript?turn=k: what the model was sent at turn k (system prompt and
 * the conversation as the policy built it) and its raw replies, with the turn's tokens, latency
 * and cost; 409 while the task is sealed.
 */
export function GET(req: NextRequest, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "the transcript", async (data) => {
    const { turn } = parseInput(transcriptQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const t = turn < data.turnCount ? (await listTurnWindowByEpisode({ episodeId: data.episode.id, from: turn, limit: 1, cut: 0 })).turns[0] : undefined;
    // Messages no turn claimed (a call that failed) sit under the index after the last turn.
    if (!t && turn !== data.turnCount) throw new NotFoundError(`turn ${turn} of episode ${data.episode.id}`);
    return NextResponse.json({
      ...turnTranscript(await listTranscriptMessagesByEpisode({ episodeId: data.episode.id }), turn),
      tokensIn: t?.tokensIn ?? null,
      tokensOut: t?.tokensOut ?? null,
      latencyMs: t?.latencyMs ?? null,
      costUsd: t?.costUsd ?? null,
    });
  });
}
