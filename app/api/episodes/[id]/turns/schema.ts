import { z } from "zod";
import { TURN_CUT, WINDOW_CUT, WINDOW_TURNS } from "@/lib/db/replay-window";

export { episodeParamsSchema } from "../schema";

/**
 * GET /api/episodes/:id/turns?from=i&limit=n&cut=c: turns from index `from` (0-based), at most
 * `limit`, observations cut to `cut` characters; `full=1` gives one turn's whole observation.
 */
export const turnsQuerySchema = z
  .object({
    from: z.coerce.number({ message: "must be a turn index" }).int().nonnegative().max(10_000_000),
    limit: z.coerce.number({ message: "must be a number of turns" }).int().min(1).max(WINDOW_TURNS).default(WINDOW_TURNS),
    cut: z.coerce.number({ message: "must be a number of characters" }).int().min(1).max(TURN_CUT).default(WINDOW_CUT),
    full: z.enum(["1"], { message: 'must be "1" (the whole observation) or left out' }).optional(),
  })
  .strict()
  .refine((q) => !q.full || q.limit === 1, { message: "must be 1 with full=1 (whole observations come one turn at a time)", path: ["limit"] });
export type TurnsQuery = z.infer<typeof turnsQuerySchema>;
