import { z } from "zod";

export { episodeParamsSchema } from "../schema";

/** POST /api/episodes/:id/branch body: continue from turn k (k actions replayed) as `annotator`. */
export const branchBodySchema = z.object({
  turn: z.number().int().min(0).max(1000),
  annotator: z.string().trim().min(1).max(100).default("anonymous"),
});
