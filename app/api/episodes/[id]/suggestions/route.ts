import { NextResponse } from "next/server";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { parseInput, respond } from "@/lib/viewer/http";
import { suggestTags } from "@/lib/viewer/suggest-tags";
import { episodeParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/episodes/:id/suggestions: tags suggested from the turns, minus those already accepted or rejected. */
export function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(episodeParamsSchema, await ctx.params, "path");
    const data = getReplayDataById({ id });
    if (!data) throw new NotFoundError(`episode ${id}`);
    const decided = new Set(data.annotations.filter((a) => a.kind === "tag").map((a) => `${a.tag}@${a.turnIndex}`));
    return NextResponse.json({ suggestions: suggestTags({ ...data.episode, turns: data.turns }).filter((s) => !decided.has(`${s.tag}@${s.turnIndex}`)) });
  });
}
