import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";

/** GET /api/tasks query: search the task sets (public fields only, never gold or tests). */
export const tasksQuerySchema = z.object({
  env: envNameSchema.optional(),
  dataset: z.string().min(1).optional(),
  q: z.string().max(500).optional(),
  hardness: z.enum(["easy", "medium", "hard", "extra"]).optional(),
  db: z.string().min(1).optional(),
  fs: z.string().min(1).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(0).max(500).default(50),
});
export type TasksQuery = z.infer<typeof tasksQuerySchema>;
