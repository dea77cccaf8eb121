import { z } from "zod";

/** POST /api/studies/<id>/clock body: one beat of a task page (its active time since the last beat). */
export const clockBeatBodySchema = z.object({
  taskId: z.string().min(1).max(300),
  activeMs: z.number().int().min(0).max(60_000),
  /** The owner working a study names their annotator; a participant's name is the Studio's. */
  annotator: z.string().trim().min(1).max(100).optional(),
});
