import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";
import { policyNameSchema } from "@/lib/agent/policies/types";
import { profileNameSchema } from "@/lib/env/profiles";

/**
 * What starts a batch run, from the runs page or `icstudio eval` (the same options either way).
 * Client-safe: the page's form and the API route both read it.
 */
export const taskSelectionSchema = z.discriminatedUnion("kind", [
  /** The dataset's tasks from `offset`, at most `limit` of them (all when absent). */
  z.object({ kind: z.literal("slice"), offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).optional() }),
  /** A seeded random sample of `limit` tasks. */
  z.object({ kind: z.literal("sample"), limit: z.number().int().min(1), seed: z.number().int().default(1) }),
  /** These task ids, in this order. */
  z.object({ kind: z.literal("list"), tasks: z.array(z.string().trim().min(1)).min(1) }),
]);

export const launchRunSchema = z.object({
  env: envNameSchema,
  dataset: z.string().trim().min(1),
  selection: taskSelectionSchema.default({ kind: "slice", offset: 0 }),
  model: z.string().trim().min(1),
  policy: policyNameSchema.default("try-again"),
  turns: z.number().int().min(1).max(100).default(10),
  /** Episodes at once; at most the server's sandbox cap (IC_MAX_SANDBOXES). */
  concurrency: z.number().int().min(1).default(4),
  /** InterCode's handicap: the SQL schema up front. */
  handicap: z.boolean().default(false),
  /** Plan & Solve: refine turns after the plan. */
  refineTurns: z.number().int().min(0).max(20).default(0),
  /** The engine's profile (lib/env/profiles.ts): studio, or intercode (InterCode's loop as it ran). */
  profile: profileNameSchema.default("studio"),
  /** The run's name (default: dataset.model.policy.turns, with the time when launched from the page). */
  name: z.string().trim().min(1).max(200).optional(),
});
export type LaunchRunInput = z.input<typeof launchRunSchema>;
export type LaunchRunOptions = z.infer<typeof launchRunSchema>;

/**
 * A run's identity: what a resume must match (the same environment, dataset, model, policy, turn
 * limit, handicap, refine turns and profile), stored in the Run row's `config` JSON.
 */
export const runIdentitySchema = z.object({
  env: envNameSchema,
  dataset: z.string(),
  model: z.string(),
  policy: policyNameSchema,
  turns: z.number().int(),
  handicap: z.boolean(),
  refineTurns: z.number().int(),
  /** Absent means studio (runs made before profiles). */
  profile: profileNameSchema.optional(),
});
export type RunIdentity = z.infer<typeof runIdentitySchema>;
/** The keys a resume compares, read off the schema. */
export const RUN_IDENTITY_KEYS = Object.keys(runIdentitySchema.shape) as (keyof RunIdentity)[];

/** What a Run row's `config` JSON holds: the run's identity, and how to redo it. */
export const storedRunConfigSchema = runIdentitySchema.extend({
  /** The selected task ids in order (absent in runs stored before the runs page). */
  taskIds: z.array(z.string()).optional(),
  selection: taskSelectionSchema.optional(),
  concurrency: z.number().int().optional(),
  /** Where it was started: the runs page ("server") or `icstudio eval` ("cli"). */
  launchedFrom: z.enum(["server", "cli"]).optional(),
});
export type StoredRunConfig = z.infer<typeof storedRunConfigSchema>;
