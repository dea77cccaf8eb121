import { NextResponse } from "next/server";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { parseInput, respond } from "@/lib/viewer/http";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/episodes/:id: the replay data (episode, turns, annotations, lineage). */
export function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(episodeParamsSchema, await ctx.params, "path");
    const data = getReplayDataById({ id });
    if (!data) throw new NotFoundError(`episode ${id}`);
    return NextResponse.json(data);
  });
}
