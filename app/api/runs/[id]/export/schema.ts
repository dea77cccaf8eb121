import { z } from "zod";

/** GET /api/runs/<id>/export?format=csv: the per-task table. (JSONL: /api/episodes/export?format=jsonl&run=<id>.) */
export const runExportQuerySchema = z.object({ format: z.enum(["csv"]).default("csv") });
