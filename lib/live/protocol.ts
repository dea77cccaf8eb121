/**
 * The live channel's websocket protocol: the messages a client sends, as zod schemas; the server
 * answers with the live channel's events (./events.ts). A connection plays a person's episode
 * (open or resume, then actions) or watches a model's (watch, then controls).
 * The browser and the server import this same module, so it must stay free of server-only imports.
 *
 * One connection works one episode at a time. The client opens (or resumes) an episode, then sends
 * actions; for each action the server streams `output` chunks as the sandbox produces them and ends
 * the turn with `turnEnd` (sent only after the turn is committed to the store).
 *
 * Every field that is a turn's, an episode start's or end's is taken from the one schema of it in
 * lib/episodes/turn.ts (pick, extend, its field schemas), never written again here, and the wire
 * owns no rule of an episode: an open without a turn limit gets the engine's default from the
 * side that opens it (./live-episodes.ts, lib/episodes/rules.ts). protocol.test.ts checks it.
 */
import { z } from "zod";
import { recordingChunkSchema } from "@/lib/recording/events";
import { episodeStartSchema, idSchema, turnSchema } from "@/lib/episodes/turn";
import { HUMAN_TURN_SOURCES } from "@/lib/episodes/rules";
import { annotatorSchema, feedbackSchema, playModeSchema, serverMessageSchema, type ServerMessage } from "@/lib/live/events";

/** Largest action accepted (bytes of UTF-8). */
export const MAX_ACTION_BYTES = 64 * 1024;
/** Largest websocket message accepted by either side (bytes). */
export const MAX_MESSAGE_BYTES = 96 * 1024;
/** Largest turn limit a player may ask for when opening an episode. */
export const MAX_OPEN_TURN_LIMIT = 1000;
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

/**
 * Follows a live model episode (its id, or its stored episode's) from entry `from` of its log: the
 * connection is sent each entry as a `logged` event, the ones so far first. A reconnect sends the
 * number after the last entry it saw.
 */
export const watchMessageSchema = z.object({ type: z.literal("watch"), id: idSchema, from: z.number().int().nonnegative().default(0) });
/** What a watcher of a model episode may do to it: pause, step, resume, stop, take over, hand back. */
export const MODEL_CONTROL_OPS = ["pause", "resume", "step", "stop", "takeOver", "handBack"] as const;
/**
 * Drives the watched model episode; op "action" runs a person's action after a take-over (its
 * source, where the person typed it, is recorded on the turn; "api" when not said).
 */
export const controlMessageSchema = z
  .object({
    type: z.literal("control"),
    op: z.enum([...MODEL_CONTROL_OPS, "action"]),
    text: actionText.optional(),
    source: z.enum(HUMAN_TURN_SOURCES).optional(),
  })
  .refine((m) => m.op !== "action" || m.text !== undefined, { message: 'op "action" needs the action\'s text', path: ["text"] });
export type ControlMessage = z.infer<typeof controlMessageSchema>;

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
  watchMessageSchema,
  controlMessageSchema,
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;
export type ClientMessageInput = z.input<typeof clientMessageSchema>;
export type OpenMessage = z.infer<typeof openMessageSchema>;
export type ActionMessage = z.infer<typeof actionMessageSchema>;

// ---------- server → client: the live channel's events (lib/live/events.ts) ----------

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
