import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { createBranchEpisode } from "@/lib/replay/branch";
import { parseJsonBody } from "@/lib/http/respond";
import { branchBodySchema, episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/branch: a new episode continuing this one from turn k; returns its id and playground URL. 409 while the task is sealed (a branch is scored after every turn). */
export function POST(req: Request, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "a branch (it is scored after every turn)", async (data) => {
    const body = await parseJsonBody(req, branchBodySchema);
    return NextResponse.json(await createBranchEpisode({ episodeId: data.episode.id, turn: body.turn, annotator: body.annotator }), { status: 201 });
  });
}
