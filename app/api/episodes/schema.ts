import { z } from "zod";
import { listParamsSchema } from "@/lib/viewer/list-params";

/** GET /api/episodes: the list view's URL parameters (see lib/viewer/list-params.ts), plus a page size. */
export const episodesQuerySchema = listParamsSchema.extend({
  size: z.coerce.number().int().min(1).max(500).optional(),
});
export type EpisodesQuery = z.infer<typeof episodesQuerySchema>;
