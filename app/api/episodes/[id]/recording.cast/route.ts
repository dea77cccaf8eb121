import { getRecordingByEpisode } from "@/lib/db/recordings";
import { NotFoundError } from "@/lib/errors";
import { type EpisodeRouteContext, withEpisodeHeader } from "@/lib/http/episode-route";
import { toAsciicast } from "@/lib/recording/events";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/episodes/:id/recording.cast: the episode's console as asciicast v2 (a header line,
 * then [seconds, "o" | "i", data] events), which asciinema and any cast player play; 404 when
 * nothing was recorded, 409 while the task is sealed.
 */
export function GET(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisodeHeader(ctx, episodeParamsSchema, "the recording", async (data) => {
    const recording = await getRecordingByEpisode({ episodeId: data.episode.id });
    if (recording.chunks.length === 0) throw new NotFoundError(`a recording of episode ${data.episode.id}`);
    const e = data.episode;
    return new Response(toAsciicast(recording, { title: `${e.environment} ${e.dataset}:${e.taskId} (episode ${e.id})` }), {
      headers: {
        "content-type": "application/x-asciicast; charset=utf-8",
        "content-disposition": `attachment; filename="episode-${e.id}.cast"`,
      },
    });
  });
}
