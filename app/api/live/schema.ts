import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";
import { startAgentSchema } from "@/lib/live/model-actor";

/** POST /api/live: start a model on a task of the playground. */
export const startAgentBodySchema = startAgentSchema.extend({
  env: envNameSchema,
  /** `<dataset>:<id>`, as in the playground's URLs. */
  taskRef: z.string().min(1).max(300),
});
export type StartAgentBody = z.infer<typeof startAgentBodySchema>;
