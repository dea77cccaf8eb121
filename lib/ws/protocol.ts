/**
 * The playground's websocket protocol: every message in both directions, as zod schemas.
 * The browser and the server import this same module, so it must stay free of server-only imports.
 *
 * One connection works one episode at a time. The client opens (or resumes) an episode, then sends
 * actions; for each action the server streams `output` chunks as the sandbox produces them and ends
 * the turn with `turnEnd` (sent only after the turn is committed to the store).
 *
 * Every field that is a turn's, an episode start's or end's is taken from the one schema of it in
 * lib/episodes/turn.ts (pick, extend, its field schemas), never written again here, and the wire
 * owns no rule of an episode: an open without a turn limit gets the engine's default from the
 * side that opens it (lib/playground, lib/episodes/rules.ts). protocol.test.ts checks it.
 */
import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";
import { publicTaskSchema } from "@/lib/tasks/public-task";
import { recordingChunkSchema } from "@/lib/recording/events";
import { EPISODE_STATUSES } from "@/lib/db/episode-status";
import { episodeEndSchema, episodeStartSchema, idSchema, playerSchema, turnSchema, turnViewSchema, type TurnView } from "@/lib/episodes/turn";

/** Largest action accepted (bytes of UTF-8). */
export const MAX_ACTION_BYTES = 64 * 1024;
/** Largest websocket message accepted by either side (bytes). */
export const MAX_MESSAGE_BYTES = 96 * 1024;
/** Largest turn limit a player may ask for when opening an episode. */
export const MAX_OPEN_TURN_LIMIT = 1000;
/** The episode modes a person plays in the playground (a batch run's "eval" is not one). */
export const playModeSchema = episodeStartSchema.shape.mode.extract(["play", "baseline"]);
export type PlayMode = z.infer<typeof playModeSchema>;
/** none: no reward until submit. reward: the reward a submit would get now, after every turn. */
export const feedbackSchema = episodeStartSchema.shape.feedback;
export type Feedback = z.infer<typeof feedbackSchema>;
/** The annotator's name as a person's episode records it. */
const annotatorSchema = playerSchema.options[0].shape.annotator;

/** `<dataset>:<id>` (see lib/tasks/task-ref.ts). */
export const taskRefSchema = z.string().min(1).max(300);

const actionText = z
  .string()
  .min(1, "the action is empty")
  .refine((s) => new TextEncoder().encode(s).length <= MAX_ACTION_BYTES, {
    message: `the action is larger than ${MAX_ACTION_BYTES / 1024} KiB`,
  });

// ---------- client → server ----------

export const openMessageSchema = episodeStartSchema.pick({ env: true }).extend({
  type: z.literal("open"),
  taskRef: taskRefSchema,
  mode: playModeSchema.default("play"),
  feedback: feedbackSchema.default("none"),
  /** Absent: the engine's default turn limit. */
  turnLimit: episodeStartSchema.shape.turnLimit.max(MAX_OPEN_TURN_LIMIT).optional(),
  /** Trimmed at the wire: a name of blanks is no name. */
  annotator: annotatorSchema.unwrap().trim().min(1).max(100).optional(),
  studyId: idSchema.optional(),
});

export const resumeMessageSchema = z.object({ type: z.literal("resume"), episodeId: idSchema });
export const actionMessageSchema = z.object({
  type: z.literal("action"),
  text: actionText,
  /** The sources a typed action has over the websocket (the Submit button sends `submit`). */
  source: turnSchema.shape.source.extract(["console", "editor"]),
});
export const interruptMessageSchema = z.object({ type: z.literal("interrupt") });
export const submitMessageSchema = z.object({ type: z.literal("submit"), arg: z.string().max(MAX_ACTION_BYTES).optional() });
export const restartMessageSchema = z.object({ type: z.literal("restart") });
export const abandonMessageSchema = z.object({ type: z.literal("abandon"), reason: z.string().max(500).optional() });
export const pingMessageSchema = z.object({ type: z.literal("ping"), t: z.number() });
/** A batch of the episode's recording (lib/recording/events.ts): keys, console output, editor changes. */
export const recordMessageSchema = recordingChunkSchema.extend({ type: z.literal("record") });
export type RecordMessage = z.infer<typeof recordMessageSchema>;

export const clientMessageSchema = z.discriminatedUnion("type", [
  openMessageSchema,
  resumeMessageSchema,
  actionMessageSchema,
  interruptMessageSchema,
  submitMessageSchema,
  restartMessageSchema,
  abandonMessageSchema,
  pingMessageSchema,
  recordMessageSchema,
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;
export type ClientMessageInput = z.input<typeof clientMessageSchema>;
export type OpenMessage = z.infer<typeof openMessageSchema>;
export type ActionMessage = z.infer<typeof actionMessageSchema>;

// ---------- shared shapes ----------

/** A turn as the player's view shows it: derived from the one Turn schema (lib/episodes/turn.ts). */
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

// ---------- server → client ----------

export const serverMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), version: z.literal(1) }),
  z.object({
    type: z.literal("opened"),
    episode: episodeViewSchema,
    task: publicTaskSchema,
    turns: z.array(turnViewSchema),
    /** Present when the episode is already finished (a resumed, submitted episode). */
    submitted: submittedPayloadSchema.optional(),
  }),
  turnSchema.pick({ index: true, action: true, source: true }).extend({ type: z.literal("turnStart") }),
  z.object({ type: z.literal("output"), chunk: z.string() }),
  turnSchema.pick({ index: true, ok: true, observation: true }).extend({
    type: z.literal("turnEnd"),
    timedOut: turnSchema.shape.timedOut.optional(),
    aborted: turnSchema.shape.aborted.optional(),
    /** The observation was cut at the sandbox's output limit. */
    truncated: z.boolean().optional(),
    /** Only in feedback mode "reward". */
    reward: turnSchema.shape.reward.unwrap().optional(),
    /** Time the action took in the environment, ms. */
    durationMs: turnSchema.shape.durationMs,
    /** SQL: the result set with column names, for the console's table (the observation stays InterCode's text). */
    table: z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.string())), truncated: z.boolean() }).optional(),
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
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;
export type ServerMessageInput = z.input<typeof serverMessageSchema>;

/** Parses one raw client message; returns the message or a readable reason. */
export function parseClientMessage(raw: string): { ok: true; message: ClientMessage } | { ok: false; reason: string } {
  if (raw.length > MAX_MESSAGE_BYTES) return { ok: false, reason: `message larger than ${MAX_MESSAGE_BYTES / 1024} KiB` };
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, reason: "message is not JSON" };
  }
  const parsed = clientMessageSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  return { ok: true, message: parsed.data };
}

/** Parses one raw server message (the browser side). */
export function parseServerMessage(raw: string): { ok: true; message: ServerMessage } | { ok: false; reason: string } {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, reason: "message is not JSON" };
  }
  const parsed = serverMessageSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error) };
  return { ok: true, message: parsed.data };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}
