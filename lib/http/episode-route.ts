import "server-only";
import type { z } from "zod";
import type { ReplayData } from "@/lib/db/episode-rows";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { parseInput, respond } from "./respond";
import { assertTaskUnsealed } from "@/lib/studies/baseline-seal";

/** The second argument Next.js passes to a handler under /api/episodes/[id]. */
export interface EpisodeRouteContext {
  params: Promise<{ id: string }>;
}

/**
 * The shared body of the /api/episodes/[id]/... handlers: validates the `id` path parameter with
 * `schema`, loads the episode's replay data (NotFoundError, 404, when absent), refuses an episode
 * whose task is sealed by an unsubmitted baseline episode (lib/studies/baseline-seal.ts; 409,
 * naming `what`), runs `fn`, and turns any error into the project's JSON error response.
 */
export function withEpisode(
  ctx: EpisodeRouteContext,
  schema: z.ZodType<{ id: string }>,
  what: string,
  fn: (data: ReplayData) => Promise<Response> | Response,
): Promise<Response> {
  return respond(async () => {
    const { id } = parseInput(schema, await ctx.params, "path");
    const data = await getReplayDataById({ id });
    if (!data) throw new NotFoundError(`episode ${id}`);
    const { environment, dataset, taskId } = data.episode;
    await assertTaskUnsealed({ environment, dataset, taskId }, what);
    return fn(data);
  });
}
