import { z } from "zod";
import { WINDOW_TURNS } from "@/lib/db/replay-window";

export { episodeParamsSchema } from "../schema";

/** GET /api/episodes/:id/suggestions?from=i&limit=n: the suggestions on turns `from`..`from + limit - 1` (a page) and on the episode. */
export const suggestionsQuerySchema = z
  .object({
    from: z.coerce.number({ message: "must be a turn index" }).int().nonnegative().max(10_000_000).default(0),
    limit: z.coerce.number({ message: "must be a number of turns" }).int().min(1).max(WINDOW_TURNS).default(WINDOW_TURNS),
  })
  .strict();
export type SuggestionsQuery = z.infer<typeof suggestionsQuerySchema>;
