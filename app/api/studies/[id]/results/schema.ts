import { z } from "zod";

/** GET /api/studies/<id>/results?format=csv|jsonl */
export const studyResultsQuerySchema = z.object({ format: z.enum(["csv", "jsonl"], { message: "format must be csv or jsonl" }).default("csv") });
