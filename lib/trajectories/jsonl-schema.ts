import { z } from "zod";
import { recordingEventSchema } from "@/lib/recording/events";
import { EPISODE_STATUSES } from "@/lib/db/episode-status";
import { episodeRecordSchema, TURN_RECORD_KEYS, turnRecordSchema, type EpisodeRecord, type TurnRecord } from "@/lib/db/record";

/**
 * The project's own trajectory format: one episode per line of a JSONL file (`icstudio export
 * --format jsonl`). It carries everything the store knows about an episode, so data moves between
 * installations without loss; `docs/episode.schema.json` is generated from this schema
 * (`npm run icstudio -- export --json-schema`), and a test keeps the two in step.
 */
export const EPISODE_FORMAT_VERSION = 1 as const;

const nullableInt = z.number().int().nullable().optional();
/** Timestamps as ISO 8601 strings. */
const isoDate = z.iso.datetime({ offset: true });

const turn = turnRecordSchema.shape;
/** Whole milliseconds, as the store keeps them. */
const wholeMs = (t: typeof turn.durationMs) => t.unwrap().int().nullable().optional().describe(t.description!);

/**
 * A line's turn: the turn record (lib/db/record.ts), where a line may leave out what a log
 * need not say, with its start time as ISO 8601 (jsonlTurn maps a stored turn to it).
 */
export const jsonlTurnSchema = turnRecordSchema
  .partial({
    ok: true,
    reward: true,
    rawReply: true,
    thought: true,
    tokensIn: true,
    tokensOut: true,
    costUsd: true,
    source: true,
    timedOut: true,
    aborted: true,
  })
  .extend({ durationMs: wholeMs(turn.durationMs), latencyMs: wholeMs(turn.latencyMs), startedAt: isoDate.nullable().optional() })
  .describe("One action and its observation");
export type JsonlTurn = z.infer<typeof jsonlTurnSchema>;

/** A stored turn as a line's: the record's fields (and only those) as they are, the start time as ISO 8601. */
export function jsonlTurn(t: { [K in keyof TurnRecord]: K extends "actor" ? string : TurnRecord[K] }): JsonlTurn {
  const out: Record<string, unknown> = {};
  for (const k of TURN_RECORD_KEYS) out[k] = t[k];
  out.startedAt = t.startedAt ? t.startedAt.toISOString() : null;
  return out as JsonlTurn;
}

export const jsonlMessageSchema = z
  .object({
    seq: z.number().int().nonnegative().describe("position in the conversation, 0-based (0 is the system prompt)"),
    turnIndex: z.number().int().nonnegative().describe("the turn that added it; the index after the last turn for a call that got no answer"),
    role: z.enum(["system", "user", "assistant"]),
    content: z.string().describe("the prompt as the policy built it, or the model's raw reply"),
    droppedTurns: nullableInt.describe("on a reply: earlier turns left out of the conversation it answered, to fit the model's context"),
  })
  .describe("One message of the conversation with the model, stored once");

/**
 * The episode record's fields a line leaves out: the store's own (its counters, row times and
 * search key), the run and the study (an imported episode belongs to neither), and the backend.
 */
type NotInLine = "backend" | "runId" | "studyId" | "turnCount" | "invalidCount" | "checkedCount" | "createdAt" | "updatedAt" | "searchKey";

/** Every other field of the record, in a line's key order (the format's since version 1, which JSONL files and docs/episode.schema.json keep). */
export const LINE_FIELDS = {
  id: true,
  environment: true,
  dataset: true,
  taskId: true,
  taskIndex: true,
  query: true,
  gold: true,
  hardness: true,
  db: true,
  playerKind: true,
  annotator: true,
  model: true,
  policy: true,
  turnLimit: true,
  mode: true,
  feedback: true,
  status: true,
  errorReason: true,
  reward: true,
  breakdown: true,
  success: true,
  solvedAtTurn: true,
  goldObservation: true,
  agentObservation: true,
  startedAt: true,
  firstActionAt: true,
  endedAt: true,
  durationMs: true,
  sourceFile: true,
  sourceKey: true,
  parentEpisodeId: true,
  branchTurn: true,
  tags: true,
  flags: true,
  turnsTaken: true,
} as const satisfies Record<Exclude<keyof EpisodeRecord, NotInLine>, true>;

const ep = episodeRecordSchema.shape;
/** A record field a line may leave out, with what it means in a line. */
const optional = <T extends z.ZodType>(t: T, description?: string) => (description ? t.optional().describe(description) : t.optional());

/**
 * A line's episode: the episode record (lib/db/record.ts), where a line may leave out what a log
 * need not say, with the line's own forms of what the store keeps loosely (the environments,
 * players, modes and statuses it does not check; times as ISO 8601; the breakdown as JSON; tags
 * and flags as lists), then its turns, the conversation with the model and a person's recording.
 */
export const jsonlEpisodeSchema = z
  .object({
    format: z.literal("icstudio.episode").describe("marks a line of this format"),
    version: z.literal(EPISODE_FORMAT_VERSION),
    ...episodeRecordSchema
      .pick(LINE_FIELDS)
      .partial({ hardness: true, annotator: true, model: true, errorReason: true, goldObservation: true, agentObservation: true })
      .extend({
        id: ep.id.min(1).describe("the episode's id in the installation that exported it"),
        environment: z.enum(["bash", "sql", "python", "ctf"]),
        dataset: ep.dataset.min(1).describe("dataset name, e.g. nl2bash-fs4, spider-dev, mbpp, ctf"),
        taskId: ep.taskId.min(1),
        taskIndex: optional(ep.taskIndex, "position of the task in its dataset file"),
        gold: optional(ep.gold, "the gold solution (a JSON array when there are several)"),
        db: optional(ep.db, "the SQL database or bash file system"),
        playerKind: z.enum(["human", "model", "imported"]),
        policy: optional(ep.policy, "try-again | react | plan-solve | single-turn"),
        turnLimit: ep.turnLimit.positive(),
        mode: z.enum(["play", "baseline", "eval", "import"]).optional(),
        feedback: z.enum(["none", "reward"]).optional(),
        status: z.enum(EPISODE_STATUSES),
        reward: ep.reward.describe(
          "final reward, normally in [0, 1]; an imported log's reward as logged (InterCode's SQL reward can be below 0: flag negative-reward); null when never evaluated",
        ),
        breakdown: z.unknown().optional().describe("the reward's components, as the environment reported them"),
        success: ep.success.describe("the reward reached 1.0"),
        solvedAtTurn: optional(ep.solvedAtTurn.unwrap().positive().nullable(), "1-based turn at which the reward first reached 1.0"),
        startedAt: isoDate,
        firstActionAt: optional(isoDate.nullable(), "when the first action was taken (a human baseline's clock starts here)"),
        endedAt: optional(isoDate.nullable()),
        durationMs: optional(ep.durationMs, "the episode's time from its first action (else its start) to its end, ms"),
        sourceFile: optional(ep.sourceFile, "the log file an imported episode came from"),
        sourceKey: optional(ep.sourceKey, "idempotency key: importing the same episode twice stores it once"),
        parentEpisodeId: optional(ep.parentEpisodeId, "lineage: the episode this one was branched from"),
        branchTurn: optional(ep.branchTurn, "lineage: how many of the parent's turns were replayed"),
        tags: z.array(z.string()).optional(),
        flags: optional(
          z.array(z.string()),
          "what is odd about an imported episode as logged: negative-reward, blocked, missing-observation, forced-submit, ...",
        ),
        turnsTaken: optional(ep.turnsTaken, "the turns the log itself counted (InterCode's summary.turns_taken, without ReAct's forced final submit)"),
      }).shape,
    turns: z.array(jsonlTurnSchema),
    messages: z
      .array(jsonlMessageSchema)
      .refine((ms) => ms.every((m, i) => i === 0 || m.seq > ms[i - 1]!.seq), { message: "seq must increase from one message to the next" })
      .optional()
      .describe(
        "the conversation with the model (model episodes): each message once, in order; what the model was sent at a turn is the messages before its reply",
      ),
    recording: z
      .object({
        truncated: z.boolean().describe("true when the episode's recording reached its size cap (IC_RECORDING_MAX_BYTES) and later events were not stored"),
        cols: z.number().int().positive().nullable(),
        rows: z.number().int().positive().nullable(),
        chunks: z.array(
          z.object({
            seq: z.number().int().nonnegative(),
            turnIndex: z.number().int().nonnegative().describe("the turn the events lead to or belong to"),
            startedAt: z.number().int().positive().describe("ms since the epoch of the chunk's first event"),
            events: z
              .array(recordingEventSchema)
              .describe('[ms after startedAt, "i" console input | "o" console output | "e" editor change (JSON {o, l, t}[]), data]'),
          }),
        ),
      })
      .optional()
      .describe(
        "a person's episode in the playground: every console keystroke, console output and editor change with its time, per turn (the console part is also served as asciicast v2)",
      ),
  })
  .describe("One InterCode Studio episode (one line of an icstudio JSONL export)");

export type JsonlEpisode = z.infer<typeof jsonlEpisodeSchema>;

/** The JSON Schema (draft 2020-12) of one JSONL line, as committed in docs/episode.schema.json. */
export function episodeJsonSchema(): Record<string, unknown> {
  return {
    $id: "https://intercode-studio.local/schemas/episode.schema.json",
    title: "InterCode Studio episode",
    ...z.toJSONSchema(jsonlEpisodeSchema, { target: "draft-2020-12", io: "input" }),
  };
}
