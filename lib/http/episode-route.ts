import "server-only";
import type { z } from "zod";
import type { ReplayData, ReplayHeader } from "@/lib/db/episode-rows";
import { getReplayDataById, getReplayHeaderById } from "@/lib/db/viewer-queries";
import { NotFoundError } from "@/lib/errors";
import { parseInput, respond } from "./respond";
import { assertTaskUnsealed } from "@/lib/studies/baseline-seal";

/** The second argument Next.js passes to a handler under /api/episodes/[id]. */
export interface EpisodeRouteContext {
  params: Promise<{ id: string }>;
}

type Loaded = Pick<ReplayData, "episode">;

/** Validates `id`, loads with `load` (404 when absent), refuses a sealed task (409), runs `fn`. */
function guarded<T extends Loaded>(
  ctx: EpisodeRouteContext,
  schema: z.ZodType<{ id: string }>,
  what: string,
  load: (id: string) => Promise<T | null>,
  fn: (data: T) => Promise<Response> | Response,
): Promise<Response> {
  return respond(async () => {
    const { id } = parseInput(schema, await ctx.params, "path");
    const data = await load(id);
    if (!data) throw new NotFoundError(`episode ${id}`);
    const { environment, dataset, taskId } = data.episode;
    await assertTaskUnsealed({ environment, dataset, taskId }, what);
    return fn(data);
  });
}

/**
 * The shared body of the /api/episodes/[id]/... handlers that work on every turn (recheck, scores,
 * branch): validates the `id` path parameter with `schema`, loads the episode's replay data
 * (NotFoundError, 404, when absent), refuses an episode whose task is sealed by an unsubmitted
 * baseline episode (lib/studies/baseline-seal.ts; 409, naming `what`), runs `fn`, and turns any
 * error into the project's JSON error response.
 */
export function withEpisode(
  ctx: EpisodeRouteContext,
  schema: z.ZodType<{ id: string }>,
  what: string,
  fn: (data: ReplayData) => Promise<Response> | Response,
): Promise<Response> {
  return guarded(ctx, schema, what, (id) => getReplayDataById({ id }), fn);
}

/**
 * As `withEpisode`, for the handlers that read one part of an episode (its header, a window of
 * turns, a transcript): loads only the header and `size` turns (none by default), whatever the
 * episode's length.
 */
export function withEpisodeHeader(
  ctx: EpisodeRouteContext,
  schema: z.ZodType<{ id: string }>,
  what: string,
  fn: (data: ReplayHeader) => Promise<Response> | Response,
  size = 0,
): Promise<Response> {
  return guarded(ctx, schema, what, (id) => getReplayHeaderById({ id, size }), fn);
}
