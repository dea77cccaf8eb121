import { startScanSchema } from "@/lib/scan/scan-options";

/** POST /api/scans: a scanner to run in the server (lib/scan/scan-jobs.ts). */
export const startScanBodySchema = startScanSchema;
