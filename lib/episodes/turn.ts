/**
 * The schema of a played turn (the one turn record, lib/db/record.ts, narrowed to what play
 * always knows), and of an episode's start and end, for every path that plays an episode (the
 * playground, model runs, branch). The other played-turn shapes are derived from these: the
 * live channel's TurnView (lib/live/events.ts), the agent view's turn (agentTurnViewSchema), the
 * recorder's input. Client-safe: no server code.
 */
import { z } from "zod";
import { END_STATUSES } from "@/lib/db/episode-status";
import { envNameSchema } from "@/lib/datasets/types";
import { turnRecordSchema, type TurnRecord } from "@/lib/db/record";
import { TURN_SOURCES } from "./rules";

/** One message of the conversation with the model, numbered in order (0 is the system prompt). */
export const transcriptEntrySchema = z.object({
  seq: z.number().int().nonnegative(),
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
  /** On a reply: earlier turns left out of the conversation it answered, to fit the context. */
  droppedTurns: z.number().int().positive().optional(),
});
export type TranscriptEntry = z.infer<typeof transcriptEntrySchema>;

export type Actor = TurnRecord["actor"];

/**
 * Where a stored turn came from: the live sources (lib/episodes/rules.ts TURN_SOURCES), or
 * "replay" for a turn copied from its parent when an episode is branched.
 */
export const turnSourceSchema = z.enum([...TURN_SOURCES, "replay"]);

/** One turn of an episode as it is played (a person's or a model's): a record with everything known. */
export const turnSchema = turnRecordSchema.extend({
  /** Where the action came from: "model" for the model's, else where the person typed it. */
  source: turnSourceSchema,
  ok: z.boolean(),
  /** True when a model's reply had no usable action. */
  invalid: z.boolean(),
  /** Time the action took in the environment, ms. */
  durationMs: z.number(),
  startedAt: z.date(),
  /** The messages this turn's model calls added to the conversation; none for a person's turn. */
  messages: z.array(transcriptEntrySchema).optional(),
});
export type Turn = z.infer<typeof turnSchema>;

/** The fields every turn has that say nothing about a model (a person's turn sets only these). */
export const MODEL_FIELDS_EMPTY = {
  invalid: false,
  thought: null,
  rawReply: null,
  tokensIn: null,
  tokensOut: null,
  latencyMs: null,
  costUsd: null,
} as const satisfies Partial<Turn>;

/**
 * A turn as a player's view shows it (the websocket's TurnView, a resumed session's history).
 * `source` is any stored name: turns stored before the sources were fixed carry older ones.
 */
export const turnViewSchema = turnSchema.pick({ index: true, action: true, observation: true, ok: true }).extend({
  actor: turnSchema.shape.actor.optional(),
  source: z.string().optional(),
  reward: turnSchema.shape.reward.optional(),
});
export type TurnView = z.infer<typeof turnViewSchema>;

const VIEW_KEYS = turnViewSchema.keyof().options;

/** The view of a recorded turn: its view fields, each present (undefined when the turn has none). */
export function turnView(t: TurnView): TurnView {
  const out: Record<string, unknown> = {};
  for (const k of VIEW_KEYS) out[k] = t[k];
  return out as TurnView;
}

/** A turn as the model view shows it (the agent event stream's turn-end, as the page reads it). */
export const agentTurnViewSchema = turnSchema.pick({
  index: true,
  actor: true,
  source: true,
  action: true,
  observation: true,
  ok: true,
  reward: true,
  thought: true,
  tokensIn: true,
  tokensOut: true,
  latencyMs: true,
  costUsd: true,
});
export type AgentTurnView = z.infer<typeof agentTurnViewSchema>;

/** Who plays an episode: a person (with the annotator's name) or a model under a policy. */
export const playerSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("human"), annotator: z.string().nullable() }),
  z.object({ kind: z.literal("model"), model: z.string(), policy: z.string() }),
]);

/** An id given from outside (an episode's, a study's): short and never empty. */
export const idSchema = z.string().min(1).max(100);

/** What starts an episode in the store (its task's own fields come from newEpisodeFromTask). */
export const episodeStartSchema = z.object({
  /** The id the episode already goes by (a playground episode names itself when opened); else a new one. */
  id: idSchema.optional(),
  env: envNameSchema,
  player: playerSchema,
  turnLimit: z.number().int().positive(),
  /** "play" (playground), "baseline" (a study), "eval" (a batch run). */
  mode: z.enum(["play", "baseline", "eval"]),
  /** Whether the player is shown rewards while playing. */
  feedback: z.enum(["reward", "none"]),
  backend: z.string().nullable().optional(),
  runId: z.string().nullable().optional(),
  studyId: idSchema.nullable().optional(),
  /** Lineage when the episode continues another one from a given turn. */
  parent: z.object({ episodeId: z.string(), turn: z.number().int().nonnegative() }).optional(),
});
export type EpisodeStartFields = z.infer<typeof episodeStartSchema>;

/** How an episode ended, as recorded. */
export const episodeEndSchema = z.object({
  status: z.enum(END_STATUSES),
  reward: z.number().nullable(),
  /** The reward's breakdown (lib/reward/types.ts RewardBreakdown), on a submit. */
  breakdown: z.unknown().optional(),
  success: z.boolean(),
  solvedAtTurn: z.number().int().nullable(),
  goldObservation: z.string().optional(),
  agentObservation: z.string().optional(),
  /** The turns the loop counts, when it stored one it leaves out (a forced submit, `react.forced-submit`). */
  turnsTaken: z.number().int().nonnegative().optional(),
  /** Why it ended without a score (error, abandon, interruption). */
  errorReason: z.string().optional(),
  /** Messages no turn claimed (the prompt of a call that failed, a reply that skipped), stored under `turnIndex`. */
  unclaimed: z.object({ turnIndex: z.number().int().nonnegative(), messages: z.array(transcriptEntrySchema) }).optional(),
});
export type EpisodeEnd = z.infer<typeof episodeEndSchema>;
