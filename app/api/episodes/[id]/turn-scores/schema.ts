import { z } from "zod";
import { WINDOW_TURNS } from "@/lib/db/replay-window";

export { episodeParamsSchema } from "../schema";

/**
 * POST /api/episodes/:id/turn-scores?from=i&limit=n[&curve=1]: the scores of the turns from index
 * `from` (0-based), at most `limit` (a page, as /turns hands them out); `curve=1` adds the replay's
 * would-be rewards aggregated as the reward curve is.
 */
export const turnScoresQuerySchema = z
  .object({
    from: z.coerce.number({ message: "must be a turn index" }).int().nonnegative().max(10_000_000).default(0),
    limit: z.coerce.number({ message: "must be a number of turns" }).int().min(1).max(WINDOW_TURNS).default(WINDOW_TURNS),
    curve: z.enum(["1"], { message: 'must be "1" (add the aggregate) or left out' }).optional(),
  })
  .strict();
export type TurnScoresQuery = z.infer<typeof turnScoresQuerySchema>;
