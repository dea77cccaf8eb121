/**
 * What a model episode emits while it runs (lib/agent/run-episode.ts's observer), as zod schemas
 * beside the one Turn and episode start/end (./turn.ts). These are the engine's events, with the
 * whole recorded Turn: batch runs count them, and the live channel turns them into the events a
 * page receives (lib/live/events.ts, the one vocabulary for watching or playing an episode).
 * Client-safe: no server code.
 */
import { z } from "zod";
import { END_STATUSES } from "@/lib/db/episode-status";
import { episodeStartSchema, turnSchema } from "./turn";

/** How a running model episode is driven (lib/episodes/controller.ts). */
export const CONTROLLER_MODES = ["running", "paused", "human", "stopped"] as const;
export const controllerModeSchema = z.enum(CONTROLLER_MODES);
export type ControllerMode = z.infer<typeof controllerModeSchema>;

const ms = z.number();

/** How a model episode ended, with its totals (what runEpisode resolves to). */
export const episodeOutcomeSchema = z.object({
  episodeId: z.string(),
  status: z.enum(END_STATUSES),
  reward: z.number().nullable(),
  success: z.boolean(),
  turns: z.number().int().nonnegative(),
  /** Turns whose action failed to run or whose reply had no action. */
  failedTurns: z.number().int().nonnegative(),
  errorReason: z.string().optional(),
  tokensIn: z.number().int().nonnegative(),
  tokensOut: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** Time spent in the environment (actions, scoring, reset, submit), ms. */
  envMs: ms,
  /** Time spent waiting for the model, ms. */
  modelMs: ms,
  /** Time spent writing to the store, ms. */
  storeMs: ms,
  totalMs: ms,
  /**
   * Process CPU time (user + system, ms) spent in the store writes, the model calls, and the whole
   * episode. Only meaningful when one episode runs at a time (the benchmark's harness figures).
   */
  cpu: z.object({ storeMs: ms, modelMs: ms, totalMs: ms }),
});
export type EpisodeOutcome = z.infer<typeof episodeOutcomeSchema>;

/** The event's fields taken from a turn (index, actor), so no event restates them. */
const turnRef = turnSchema.pick({ index: true });
const turnActor = turnSchema.pick({ index: true, actor: true });

/** The events a model episode emits, in order. Turn events come after the turn is in the store. */
export const agentEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("episode-start"),
    episodeId: z.string(),
    taskId: z.string(),
    policy: z.string(),
    model: z.string(),
    maxTurns: episodeStartSchema.shape.turnLimit,
  }),
  z.object({ type: z.literal("plan"), steps: z.array(z.string()), rawReply: z.string() }),
  turnActor.extend({ type: z.literal("turn-start") }),
  turnRef.extend({ type: z.literal("reply-delta"), text: z.string() }),
  /** The model's reply came after a take-over (or stop): dropped, not a turn. */
  turnRef.extend({ type: z.literal("reply-dropped") }),
  turnActor.extend({ type: z.literal("action"), action: turnSchema.shape.action, thought: turnSchema.shape.thought }),
  turnRef.extend({ type: z.literal("output"), chunk: z.string() }),
  z.object({ type: z.literal("turn-end"), turn: turnSchema }),
  z.object({ type: z.literal("submitted"), reward: z.number(), success: z.boolean() }),
  z.object({ type: z.literal("episode-end"), outcome: episodeOutcomeSchema }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
