import { z } from "zod";
import { STATS_DIMENSIONS } from "@/lib/db/stats-dimensions";
import { CHARTS } from "@/lib/stats/aggregates";
import { listParamsSchema } from "@/lib/viewer/list-params";

const dims = Object.keys(STATS_DIMENSIONS) as [keyof typeof STATS_DIMENSIONS, ...(keyof typeof STATS_DIMENSIONS)[]];

/** GET /api/stats: the list view's filters, a grouping (`group=env,model`) and optionally one chart as CSV. */
export const statsQuerySchema = listParamsSchema.extend({
  group: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : ["env", "actor", "model", "policy"],
    )
    .pipe(z.array(z.enum(dims)).max(5)),
  csv: z.enum(CHARTS).optional(),
});
