import { z } from "zod";

/** The model id in /api/models/:id paths. */
export const modelParamsSchema = z.object({ id: z.string().min(1).max(200) });
export type ModelParams = z.infer<typeof modelParamsSchema>;
