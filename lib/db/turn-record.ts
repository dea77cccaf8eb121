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
  /** 0-based. */
  index: z.number().int().nonnegative(),
  actor: z.enum(ACTORS),
  /** The action run; "" for an invalid turn (no usable action in the reply). */
  action: z.string(),
  /** What the environment printed (whole, before any budget cut), or why the reply was invalid. */
  observation: z.string(),
  /** Whether the action executed without error; null when a log does not say. */
  ok: z.boolean().nullable(),
  /** The reward a submit would have got after this turn, when it was scored. */
  reward: z.number().nullable(),
  rawReply: z.string().nullable(),
  thought: z.string().nullable(),
  tokensIn: z.number().int().nullable(),
  tokensOut: z.number().int().nullable(),
  /** Time the action took in the environment, ms. */
  durationMs: z.number().nullable(),
  /** Model latency (retries and back-off included), ms. */
  latencyMs: z.number().nullable(),
  costUsd: z.number().nullable(),
  /** Where the action came from (turnSourceSchema for a played turn; older or imported turns may carry other names). */
  source: z.string().nullable(),
  timedOut: z.boolean(),
  aborted: z.boolean(),
  startedAt: z.date().nullable(),
});
export type TurnRecord = z.infer<typeof turnRecordSchema>;

/** The record's keys, in column order. */
export const TURN_RECORD_KEYS = turnRecordSchema.keyof().options;
