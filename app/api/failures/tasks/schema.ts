import { z } from "zod";
import { listParamsSchema } from "@/lib/viewer/list-params";

/** GET /api/failures/tasks: the episode list's filters, and the export's format. */
export const taskQaQuerySchema = listParamsSchema.extend({
  format: z.enum(["json", "csv"]).default("json"),
});
