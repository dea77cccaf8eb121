import { NextResponse } from "next/server";
import { type EpisodeRouteContext, withEpisode } from "@/lib/http/episode-route";
import { suggestTags } from "@/lib/failures/suggest-tags";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/episodes/:id/suggestions: tags suggested from the turns, minus those already accepted or rejected; 409 while the task is sealed. */
export function GET(_req: Request, ctx: EpisodeRouteContext) {
  return withEpisode(ctx, episodeParamsSchema, "tag suggestions (they read the rewards)", (data) => {
    const decided = new Set(data.annotations.filter((a) => a.kind === "tag" && a.source === "person").map((a) => `${a.tag}@${a.turnIndex}`));
    return NextResponse.json({ suggestions: suggestTags({ ...data.episode, turns: data.turns }).filter((s) => !decided.has(`${s.tag}@${s.turnIndex}`)) });
  });
}
