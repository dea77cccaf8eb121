import { z } from "zod";

/** POST /api/episodes/import (multipart form): `file` (one or more) and optional overrides. */
export const importFormSchema = z.object({
  model: z.string().trim().min(1).max(100).optional(),
  policy: z.string().trim().min(1).max(50).optional(),
  dataset: z.string().trim().min(1).max(100).optional(),
  turns: z.coerce.number().int().min(1).max(1000).optional(),
});
export type ImportForm = z.infer<typeof importFormSchema>;

/** Biggest upload accepted per file (bytes). */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
