import { launchRunSchema } from "@/lib/runs/launch-options";

/** POST /api/runs: a batch run's options, as `icstudio eval` takes them (lib/runs/launch-options.ts). */
export const launchRunBodySchema = launchRunSchema;
