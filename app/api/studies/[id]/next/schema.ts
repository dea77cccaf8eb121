import { z } from "zod";

/** GET /api/studies/<id>/next?annotator=<name> */
export const studyNextQuerySchema = z.object({ annotator: z.string().trim().min(1).max(100) });
