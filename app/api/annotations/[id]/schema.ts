import { z } from "zod";

export const annotationParamsSchema = z.object({ id: z.string().min(1).max(100) });

/** PATCH /api/annotations/:id: accept or reject (a suggested) tag. */
export const annotationPatchSchema = z.object({ status: z.enum(["accepted", "rejected", "suggested"]) });
