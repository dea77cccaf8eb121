/**
 * The live channel's event vocabulary: everything a page receives while a person plays or watches
 * an episode, whoever its actor is (a person playing, or a model watched and perhaps taken over).
 * One zod union, sent over the one websocket (./ws-server.ts) and parsed on both sides; a turn
 * starts, streams output and ends with the same events and fields whether a person or a model acts.
 *
 * The engine's own observer events (lib/episodes/agent-event.ts, what runEpisode emits) are turned
 * into these by ./from-engine.ts as a model's live episode (./model-actor.ts) logs them; a person's
 * (./person-actor.ts) sends these directly. Every field that is a turn's, an
 * episode start's or end's is taken from the one schema of it in lib/episodes/turn.ts.
 * Client-safe: no server code.
 */
import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";
import { EPISODE_STATUSES } from "@/lib/db/episode-status";
import { controllerModeSchema, episodeOutcomeSchema } from "@/lib/episodes/agent-event";
import { episodeEndSchema, episodeStartSchema, idSchema, playerSchema, turnSchema, turnViewSchema, type TurnView } from "@/lib/episodes/turn";
import { publicTaskSchema } from "@/lib/tasks/public-task";

/** The episode modes a person plays in the playground (a batch run's "eval" is not one). */
export const playModeSchema = episodeStartSchema.shape.mode.extract(["play", "baseline"]);
export type PlayMode = z.infer<typeof playModeSchema>;
/** none: no reward until submit. reward: the reward a submit would get now, after every turn. */
export const feedbackSchema = episodeStartSchema.shape.feedback;
export type Feedback = z.infer<typeof feedbackSchema>;
/** The annotator's name as a person's episode records it. */
export const annotatorSchema = playerSchema.options[0].shape.annotator;

/** A turn as the player's view lists it: derived from the one Turn schema (lib/episodes/turn.ts). */
export { turnViewSchema, type TurnView };

export const episodeViewSchema = z.object({
  id: idSchema,
  /** "running" until it ends in one of the end statuses. */
  status: z.enum(EPISODE_STATUSES),
  mode: playModeSchema,
  feedback: feedbackSchema,
  turnLimit: episodeStartSchema.shape.turnLimit,
  annotator: annotatorSchema.optional(),
  studyId: episodeStartSchema.shape.studyId,
  /** Milliseconds since the epoch of the first action (the baseline clock), or null. */
  firstActionAt: z.number().nullable(),
  /**
   * Milliseconds since the epoch when a finished episode ended, or null/absent while it runs: a
   * finished episode's clock shows the fixed span firstActionAt → endedAt (its stored durationMs).
   */
  endedAt: z.number().nullable().optional(),
  /** Set when the episode was restored by replaying its stored actions into a fresh sandbox. */
  replayed: z.boolean().optional(),
  /**
   * False while a freshly opened episode has taken no action: it is stored at its first action (or
   * submit), so merely opening a task leaves nothing behind. Absent means stored.
   */
  stored: z.boolean().optional(),
});
export type EpisodeView = z.infer<typeof episodeViewSchema>;

/** A reward's breakdown on the wire (lib/reward/types.ts RewardBreakdown): fields by the environment it names. */
export const breakdownSchema = z.record(z.string(), z.unknown()).and(z.object({ kind: envNameSchema }));

export const submittedPayloadSchema = z.object({
  /** A submit always has a reward (an episode that ended otherwise has none). */
  reward: episodeEndSchema.shape.reward.unwrap(),
  breakdown: breakdownSchema,
  /** The gold solution (a command, query, function or flag), shown after submit. */
  gold: z.string(),
  goldObservation: episodeEndSchema.shape.goldObservation.unwrap(),
  agentObservation: episodeEndSchema.shape.agentObservation.unwrap(),
  /** A study that shows participants no outcome: reward and breakdown are placeholders, not the score. */
  hidden: z.boolean().optional(),
});
export type SubmittedPayload = z.infer<typeof submittedPayloadSchema>;

// ---------- a turn, whoever acts ----------

/**
 * A turn began. A person's turn names its action at once; a model's names it in `action` once its
 * reply is parsed (the model is thinking in between).
 */
export const turnStartEventSchema = turnSchema.pick({ index: true, actor: true }).extend({
  type: z.literal("turnStart"),
  action: turnSchema.shape.action.optional(),
  source: turnSchema.shape.source.optional(),
});

/** A chunk of the running action's output, as the sandbox produces it. */
export const outputEventSchema = turnSchema.pick({ index: true }).extend({ type: z.literal("output"), chunk: z.string() });

/** The turn is in the store (it is sent only after the write): the fields a view shows of it. */
export const turnEndEventSchema = turnSchema.pick({ index: true, actor: true, source: true, action: true, ok: true, observation: true }).extend({
  type: z.literal("turnEnd"),
  timedOut: turnSchema.shape.timedOut.optional(),
  aborted: turnSchema.shape.aborted.optional(),
  /** The observation was cut at the sandbox's output limit. */
  truncated: z.boolean().optional(),
  /** Absent when the turn is not scored (a person's episode in feedback mode "none"). */
  reward: turnSchema.shape.reward.unwrap().optional(),
  /** Time the action took in the environment, ms. */
  durationMs: turnSchema.shape.durationMs,
  /** SQL: the result set with column names, for the console's table (the observation stays InterCode's text). */
  table: z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.string())), truncated: z.boolean() }).optional(),
  /** The model's side of the turn (absent on a person's episode). */
  ...turnSchema.pick({ thought: true, tokensIn: true, tokensOut: true, latencyMs: true, costUsd: true }).partial().shape,
});
export type TurnEndEvent = z.infer<typeof turnEndEventSchema>;

// ---------- a person's episode (the websocket's session) ----------

const personEvents = [
  z.object({ type: z.literal("hello"), version: z.literal(1) }),
  z.object({
    type: z.literal("opened"),
    episode: episodeViewSchema,
    task: publicTaskSchema,
    turns: z.array(turnViewSchema),
    /** Present when the episode is already finished (a resumed, submitted episode). */
    submitted: submittedPayloadSchema.optional(),
  }),
  z.object({
    type: z.literal("submitted"),
    ...submittedPayloadSchema.shape,
    /** The submit came at the turn limit: scored, but not a turn (lib/episodes/rules.ts turnsTaken). */
    forced: z.boolean().optional(),
  }),
  z.object({ type: z.literal("limitReached"), turns: z.number().int(), limit: episodeStartSchema.shape.turnLimit, message: z.string() }),
  z.object({ type: z.literal("abandoned") }),
  z.object({ type: z.literal("status"), message: z.string() }),
  z.object({
    type: z.literal("error"),
    code: z.string(),
    message: z.string(),
    /** The episode can go on (a rejected message) or not (the sandbox died). */
    fatal: z.boolean().default(false),
    /**
     * The episode's status after the error, when the error stopped it: "error" (the sandbox failed;
     * stored so), "interrupted" (its idle sandbox was closed; a reconnect restores it by replay).
     */
    episodeStatus: episodeEndSchema.shape.status.extract(["error", "interrupted"]).optional(),
  }),
  z.object({ type: z.literal("pong"), t: z.number() }),
] as const;

// ---------- a model's episode (watched, paused, taken over) ----------

const modelEvents = [
  z.object({
    type: z.literal("episodeStart"),
    episodeId: z.string(),
    taskId: z.string(),
    policy: z.string(),
    model: z.string(),
    maxTurns: episodeStartSchema.shape.turnLimit,
  }),
  z.object({ type: z.literal("plan"), steps: z.array(z.string()) }),
  turnSchema.pick({ index: true }).extend({ type: z.literal("replyDelta"), text: z.string() }),
  /** The model's reply came after a take-over (or stop): dropped, not a turn. */
  turnSchema.pick({ index: true }).extend({ type: z.literal("replyDropped") }),
  /** The turn's action is known (a model's parsed reply, or a person's action after a take-over). */
  turnSchema.pick({ index: true, actor: true, action: true, thought: true }).extend({ type: z.literal("action") }),
  z.object({ type: z.literal("episodeEnd"), outcome: episodeOutcomeSchema.pick({ status: true, reward: true, success: true, errorReason: true }) }),
  /** How the episode is driven now (running, paused, taken over by a person, stopped). */
  z.object({ type: z.literal("mode"), mode: controllerModeSchema }),
  /** The episode could not start or broke off. */
  z.object({ type: z.literal("failed"), message: z.string() }),
] as const;

/** Every event of the live channel. */
export const liveEventSchema = z.discriminatedUnion("type", [turnStartEventSchema, outputEventSchema, turnEndEventSchema, ...personEvents, ...modelEvents]);
export type LiveEvent = z.infer<typeof liveEventSchema>;
export type LiveEventInput = z.input<typeof liveEventSchema>;
export type LiveEventOf<T extends LiveEvent["type"]> = Extract<LiveEvent, { type: T }>;

/**
 * An entry of a model episode's log, numbered from 0: a watcher that reconnects (or a second tab)
 * asks for the log from the number after the last it saw (protocol.ts `watch`).
 */
export const loggedLiveEventSchema = z.object({ type: z.literal("logged"), seq: z.number().int().nonnegative(), event: liveEventSchema });
export type LoggedLiveEvent = z.infer<typeof loggedLiveEventSchema>;

/** What the websocket sends: a person's episode's events as they are, a watched model's as numbered log entries. */
export const serverMessageSchema = z.discriminatedUnion("type", [...liveEventSchema.options, loggedLiveEventSchema]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;
export type ServerMessageInput = z.input<typeof serverMessageSchema>;
