import { NextResponse } from "next/server";
import { createBranchEpisode } from "@/lib/viewer/branch";
import { parseInput, readJson, respond } from "@/lib/viewer/http";
import { branchBodySchema, episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/branch: a new episode continuing this one from turn k; returns its id and playground URL. */
export function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(episodeParamsSchema, await ctx.params, "path");
    const body = parseInput(branchBodySchema, await readJson(req), "body");
    return NextResponse.json(await createBranchEpisode({ episodeId: id, turn: body.turn, annotator: body.annotator }), { status: 201 });
  });
}
