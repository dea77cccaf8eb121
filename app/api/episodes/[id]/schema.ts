import { z } from "zod";

/** Route parameter of /api/episodes/[id]/... */
export const episodeParamsSchema = z.object({ id: z.string().min(1).max(100) });
