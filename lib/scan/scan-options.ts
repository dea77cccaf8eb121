import { z } from "zod";
import { scanQuestionSchema, scanTagSchema } from "./scan-prompt";

/** Episodes one scan reads at most (the newest first), and the default. */
export const SCAN_MAX_EPISODES = 500;
export const SCAN_DEFAULT_EPISODES = 100;
/** Model calls in flight at once, at most, and the default. */
export const SCAN_MAX_CONCURRENCY = 16;
export const SCAN_DEFAULT_CONCURRENCY = 4;

/** A scan to start in the server (POST /api/scans), as `icstudio scan` takes it, the episodes as a list filter (`env=sql,model=gpt-4`). */
export const startScanSchema = z.object({
  question: scanQuestionSchema,
  tag: scanTagSchema,
  model: z.string().min(1, { message: "pick a model" }),
  /** The list filters as key=value pairs, e.g. env=sql,model=gpt-4 (empty: every episode). */
  filter: z.string().max(2000).default(""),
  limit: z.number().int().min(1).max(SCAN_MAX_EPISODES).default(SCAN_DEFAULT_EPISODES),
  concurrency: z.number().int().min(1).max(SCAN_MAX_CONCURRENCY).default(SCAN_DEFAULT_CONCURRENCY),
});
export type StartScanInput = z.input<typeof startScanSchema>;
