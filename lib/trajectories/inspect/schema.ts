import { z } from "zod";

/**
 * The parts of Inspect AI's EvalLog that the Studio reads and writes (Inspect keeps the whole
 * model in its own code; these are loose: every other field is kept as it is). A log is the eval
 * spec, plan, results and stats (`header.json` in a `.eval`, the top of a `.json` log) and its
 * samples (`samples/<id>_epoch_<n>.json`, or the `samples` array of a `.json` log).
 */

const id = z.union([z.string(), z.number()]);

export const inspectContentSchema = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

export const inspectToolCallSchema = z.looseObject({
  id: z.string(),
  function: z.string(),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

export const inspectMessageSchema = z.looseObject({
  id: z.string().optional(),
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: inspectContentSchema,
  tool_calls: z.array(inspectToolCallSchema).nullable().optional(),
  tool_call_id: z.string().nullable().optional(),
  function: z.string().nullable().optional(),
  error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).nullable().optional(),
  model: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const inspectUsageSchema = z.looseObject({
  input_tokens: z.number().nullable().optional(),
  output_tokens: z.number().nullable().optional(),
  total_tokens: z.number().nullable().optional(),
});

export const inspectScoreSchema = z.looseObject({
  value: z.unknown(),
  answer: z.string().nullable().optional(),
  explanation: z.string().nullable().optional(),
  metadata: z.unknown().optional(),
});

export const inspectEventSchema = z.looseObject({ event: z.string() });

export const inspectSampleSchema = z.looseObject({
  id,
  epoch: z.number().int().default(1),
  input: z.union([z.string(), z.array(inspectMessageSchema)]),
  target: z.union([z.string(), z.array(z.string())]).optional(),
  messages: z.array(inspectMessageSchema).default([]),
  output: z.looseObject({ model: z.string().optional(), usage: inspectUsageSchema.nullable().optional() }).nullable().optional(),
  scores: z.record(z.string(), inspectScoreSchema).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  events: z.array(inspectEventSchema).optional(),
  model_usage: z.record(z.string(), inspectUsageSchema).nullable().optional(),
  total_time: z.number().nullable().optional(),
  working_time: z.number().nullable().optional(),
  error: z.looseObject({ message: z.string().optional() }).nullable().optional(),
  attachments: z.record(z.string(), z.string()).optional(),
});

export const inspectEvalSpecSchema = z.looseObject({
  eval_id: z.string().optional(),
  run_id: z.string().optional(),
  created: z.string().optional(),
  task: z.string(),
  task_id: z.string().optional(),
  model: z.string(),
  solver: z.string().nullable().optional(),
  dataset: z.looseObject({ name: z.string().nullable().optional() }).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});

export const inspectHeaderSchema = z.looseObject({
  version: z.number().int(),
  status: z.string().optional(),
  eval: inspectEvalSpecSchema,
  plan: z.looseObject({ steps: z.array(z.looseObject({ solver: z.string() })).optional() }).optional(),
  results: z.unknown().optional(),
  stats: z.looseObject({ started_at: z.string().optional(), completed_at: z.string().optional() }).optional(),
  error: z.unknown().optional(),
});

export type InspectMessage = z.infer<typeof inspectMessageSchema>;
export type InspectSample = z.infer<typeof inspectSampleSchema>;
export type InspectHeader = z.infer<typeof inspectHeaderSchema>;

/** Inspect's event types (its `Event` union); any other is kept with the episode and flagged. */
export const KNOWN_INSPECT_EVENTS = new Set([
  "sample_init",
  "sample_limit",
  "sandbox",
  "state",
  "store",
  "model",
  "tool",
  "approval",
  "input",
  "score",
  "score_edit",
  "error",
  "logger",
  "info",
  "step",
  "subtask",
  "span_begin",
  "span_end",
  "compaction",
]);
