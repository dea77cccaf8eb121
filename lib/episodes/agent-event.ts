/**
 * What a model episode emits while it runs (lib/agent/run-episode.ts), as zod schemas beside the
 * one Turn and episode start/end (./turn.ts): the server logs these events, streams them to the
 * model view (app/api/agent/runs/[id]/events) and the page parses them with the same schemas.
 * Client-safe: no server code.
 */
import { z } from "zod";
import { END_STATUSES } from "@/lib/db/episode-status";
import { agentTurnViewSchema, episodeStartSchema, turnSchema } from "./turn";

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
function agentEventOptions<T extends z.ZodType>(turn: T) {
  return [
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
    z.object({ type: z.literal("turn-end"), turn }),
    z.object({ type: z.literal("submitted"), reward: z.number(), success: z.boolean() }),
    z.object({ type: z.literal("episode-end"), outcome: episodeOutcomeSchema }),
  ] as const;
}

/** An event as emitted in the server: its turn-end carries the whole recorded Turn. */
export const agentEventSchema = z.discriminatedUnion("type", [...agentEventOptions(turnSchema)]);
export type AgentEvent = z.infer<typeof agentEventSchema>;

/** What the live log adds around a model's events: a change of mode, or a failure to start. */
const logOnlyEvents = [
  z.object({ type: z.literal("mode"), mode: controllerModeSchema }),
  z.object({ type: z.literal("failed"), message: z.string() }),
] as const;

/** One event of a live model episode's log, numbered from 0 (what the event stream sends). */
export const loggedEventSchema = z.object({
  seq: z.number().int().nonnegative(),
  event: z.discriminatedUnion("type", [...agentEventOptions(turnSchema), ...logOnlyEvents]),
});
export type LoggedEvent = z.infer<typeof loggedEventSchema>;

/**
 * The same log as the model view reads it over the wire: JSON carries no Date, so a turn-end's
 * turn is the agent view's pick of the Turn (agentTurnViewSchema), other fields dropped.
 */
export const loggedEventViewSchema = z.object({
  seq: loggedEventSchema.shape.seq,
  event: z.discriminatedUnion("type", [...agentEventOptions(agentTurnViewSchema), ...logOnlyEvents]),
});
export type LoggedEventView = z.infer<typeof loggedEventViewSchema>;
