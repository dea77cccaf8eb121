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

/**
 * The one record of an episode: what the store keeps of it (the Episode table), whatever played
 * or imported it. The store's row codec (lib/db/rows.ts), the bulk writer's columns
 * (lib/db/bulk-import.ts) and the list's and replay's rows (lib/db/episode-rows.ts) are derived
 * from it. Keys are in the table's column order.
 */
export const episodeRecordSchema = z.object({
  id: z.string(),
  /** bash | sql | python | ctf */
  environment: z.string(),
  dataset: z.string(),
  taskId: z.string(),
  taskIndex: z.number().int().nullable(),
  query: z.string(),
  /** The gold solution as text (a JSON array when the task has several). */
  gold: z.string().nullable(),
  /** human | model | imported */
  playerKind: z.string(),
  annotator: z.string().nullable(),
  model: z.string().nullable(),
  policy: z.string().nullable(),
  turnLimit: z.number().int(),
  /** play | baseline | eval | import */
  mode: z.string(),
  /** none | reward: whether the player saw the reward while playing */
  feedback: z.string(),
  backend: z.string().nullable(),
  /** lib/db/episode-status.ts EPISODE_STATUSES */
  status: z.string(),
  errorReason: z.string().nullable(),
  reward: z.number().nullable(),
  /** The reward's breakdown as JSON text. */
  breakdown: z.string().nullable(),
  success: z.boolean(),
  /** The first turn (1-based) at which the reward reached 1.0. */
  solvedAtTurn: z.number().int().nullable(),
  goldObservation: z.string().nullable(),
  agentObservation: z.string().nullable(),
  startedAt: z.date(),
  firstActionAt: z.date().nullable(),
  endedAt: z.date().nullable(),
  /** From the first action (else the start) to the end, ms. */
  durationMs: z.number().int().nullable(),
  sourceFile: z.string().nullable(),
  /** An imported episode's idempotency key. */
  sourceKey: z.string().nullable(),
  parentEpisodeId: z.string().nullable(),
  branchTurn: z.number().int().nullable(),
  runId: z.string().nullable(),
  studyId: z.string().nullable(),
  hardness: z.string().nullable(),
  db: z.string().nullable(),
  /** Accepted tag names, space-separated. */
  tags: z.string(),
  /** What is odd about an imported episode as logged, space-separated (lib/trajectories/flags.ts). */
  flags: z.string(),
  /** The counters the turn writer keeps (lib/db/turn-writer.ts turnCounters). */
  turnCount: z.number().int(),
  /** The turns the log itself counted (InterCode's summary.turns_taken), when it says. */
  turnsTaken: z.number().int().nullable(),
  invalidCount: z.number().int(),
  checkedCount: z.number().int(),
  createdAt: z.date(),
  updatedAt: z.date(),
  /** The episode's full-text document's key. */
  searchKey: z.number().int().nullable(),
});
export type EpisodeRecord = z.infer<typeof episodeRecordSchema>;

/** The episode record's keys, in column order. */
export const EPISODE_RECORD_KEYS = episodeRecordSchema.keyof().options;

/*
 * The record as the store's raw SQL hands it back (lib/db/sql.ts reads both engines alike):
 * booleans as 1/0, times as Unix milliseconds, and no check tighter than the column's type
 * (SQLite keeps a non-integral value written to an INTEGER column as is; old rows may hold any
 * text). lib/db/rows.ts parses rows with these.
 */
export const textColumn = z.string();
export const numberColumn = z.number();
/** A boolean column: 1/0 on both engines (lib/db/postgres.ts maps PostgreSQL's bool to them). */
export const flagColumn = z.union([z.literal(0), z.literal(1)], { error: "expected a boolean stored as 0 or 1" }).transform((v) => v === 1);
/** A time column: Unix milliseconds. */
export const timeColumn = z.number({ error: "expected a time in Unix milliseconds" });

/** A record field's column, as stored (a BigInt column holds times in ms, which a number keeps exactly). */
type ColumnOf<T> =
  T extends z.ZodNullable<infer I>
    ? z.ZodNullable<ColumnOf<I>>
    : T extends z.ZodBoolean
      ? typeof flagColumn
      : T extends z.ZodDate
        ? typeof timeColumn
        : T extends z.ZodNumber | z.ZodBigInt
          ? typeof numberColumn
          : typeof textColumn;
function columnOf(t: z.ZodType): z.ZodType {
  if (t instanceof z.ZodNullable) return columnOf(t.unwrap() as z.ZodType).nullable();
  if (t instanceof z.ZodBoolean) return flagColumn;
  if (t instanceof z.ZodDate) return timeColumn;
  if (t instanceof z.ZodNumber || t instanceof z.ZodBigInt) return numberColumn;
  return textColumn;
}
/** A record's fields as the columns raw SQL reads (lib/db/rows.ts states the other tables' rows with it). */
export function rowShapeOf<S extends z.ZodRawShape>(shape: S): { [K in keyof S]: ColumnOf<S[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([k, t]) => [k, columnOf(t as z.ZodType)])) as { [K in keyof S]: ColumnOf<S[K]> };
}

/** A row of "Episode" as raw SQL reads it. */
export const episodeRowSchema = z.object(rowShapeOf(episodeRecordSchema.shape));
export type EpisodeRow = z.output<typeof episodeRowSchema>;

/** A row of "Turn" as raw SQL reads it: the turn record's columns beside the row's id, episode and insert time. */
export const turnRowSchema = z.object({ id: numberColumn, episodeId: textColumn, ...rowShapeOf(turnRecordSchema.shape), createdAt: timeColumn });
export type TurnRow = z.output<typeof turnRowSchema>;
