import { NextResponse } from "next/server";
import { getRecordingByEpisode } from "@/lib/db/recordings";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/episodes/:id/recording: the episode's recording (console keys, console output, editor
 * changes with their times, per turn) as JSON, for the replay's player, which loads it on its own
 * so the replay page's cost does not grow with it; 409 while the task is sealed.
 */
export function GET(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "the recording", async (data) =>
    NextResponse.json(await getRecordingByEpisode({ episodeId: data.episode.id })),
  );
}
