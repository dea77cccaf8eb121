import { z } from "zod";

/** Who chose a turn's action. */
export const ACTORS = ["human", "model"] as const;

/**
 * The one record of a turn: what the store keeps of it (the Turn table's columns beside the
 * episode id and insert time; lib/db/turn-writer.ts writes them), and what every other form picks
 * from or narrows: a played turn (lib/episodes/turn.ts turnSchema, and the views derived from it),
 * the replay's turn (lib/db/episode-rows.ts ReplayTurn), a JSONL line's turn
 * (lib/trajectories/jsonl-schema.ts). Keys are in the table's column order. What an imported log
 * need not say is null (ok, source, times). It lives beside the store so that lib/db, which
 * lib/episodes builds on, can write it; client-safe: no server code.
 */
export const turnRecordSchema = z.object({
  index: z.number().int().nonnegative().describe("0-based position in the episode"),
  actor: z.enum(ACTORS).describe("who chose the action"),
  /** The action run; "" for an invalid turn (no usable action in the reply). */
  action: z.string(),
  /** What the environment printed (whole, before any budget cut), or why the reply was invalid. */
  observation: z.string().describe("what the environment answered"),
  ok: z.boolean().nullable().describe("whether the action executed without error; null when unknown"),
  /** The reward a submit would have got after this turn, when it was scored. */
  reward: z.number().nullable().describe("the reward after this turn, if evaluated"),
  rawReply: z.string().nullable().describe("a model's full reply"),
  thought: z.string().nullable().describe("a model's reasoning (ReAct)"),
  tokensIn: z.number().int().nullable(),
  tokensOut: z.number().int().nullable(),
  durationMs: z.number().nullable().describe("the action's time in the environment, ms"),
  /** Retries and back-off included. */
  latencyMs: z.number().nullable().describe("the model's reply latency, ms (model turns)"),
  costUsd: z.number().nullable(),
  /** A played turn's is lib/episodes/turn.ts turnSourceSchema; older or imported turns may carry other names. */
  source: z.string().nullable().describe("editor | terminal | model | replay"),
  timedOut: z.boolean(),
  aborted: z.boolean(),
  startedAt: z.date().nullable(),
});
export type TurnRecord = z.infer<typeof turnRecordSchema>;

/** The record's keys, in column order. */
export const TURN_RECORD_KEYS = turnRecordSchema.keyof().options;
