import { NextResponse } from "next/server";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { taskForEpisode } from "@/lib/viewer/episode-task";
import { getGoldOutput } from "@/lib/viewer/gold";
import { parseInput, respond } from "@/lib/viewer/http";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/:id/gold: gold's solution and output for the episode's task (run once in a fresh sandbox, then cached). */
export function POST(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(episodeParamsSchema, await ctx.params, "path");
    const data = getReplayDataById({ id });
    if (!data) throw new NotFoundError(`episode ${id}`);
    const task = taskForEpisode(data.episode);
    return NextResponse.json(await getGoldOutput(task));
  });
}
