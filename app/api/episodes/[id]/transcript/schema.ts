import { z } from "zod";

export { episodeParamsSchema } from "../schema";

/** GET /api/episodes/:id/transcript?turn=k: one turn's transcript (0-based turn index). */
export const transcriptQuerySchema = z.object({ turn: z.coerce.number({ message: "must be a turn index" }).int().nonnegative() });
export type TranscriptQuery = z.infer<typeof transcriptQuerySchema>;
