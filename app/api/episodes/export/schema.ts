import { z } from "zod";
import { listParamsSchema } from "@/lib/viewer/list-params";

/** GET /api/episodes/export: the list view's filters and the format. */
export const exportQuerySchema = listParamsSchema.extend({
  format: z.enum(["jsonl", "intercode", "inspect", "atif"]).default("jsonl"),
});
