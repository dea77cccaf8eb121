import "server-only";
import { z } from "zod";
import { StorageError } from "@/lib/errors";
import type * as Model from "./generated/client";
import { episodeRecordSchema, episodeRowSchema, rowShapeOf, turnRecordSchema, turnRowSchema } from "./record";

/**
 * The one schema of the store's raw SQL rows (lib/db/sql.ts reads them alike on both engines:
 * numbers, booleans as 1/0, times as Unix milliseconds), one a table of schema.prisma. Every
 * query that reads rows parses them here, picking the columns it selected, instead of casting: a
 * value of the wrong kind is a StorageError naming the table, the row and the column. Each table
 * is stated once, as its record (the fields as Prisma's client types them: Dates, booleans), and
 * its row is derived from that; TypeScript holds every record to the model Prisma generates from
 * schema.prisma (the checks at the end), so schema.prisma is the one declaration of the tables.
 * Episode and Turn are their records' (lib/db/record.ts); the other tables are stated here.
 */

const text = z.string();
const int = z.number().int();
const real = z.number();
const flag = z.boolean();
const time = z.date();

/** Fields of "TurnReplay" (schema.prisma model TurnReplay). */
const turnReplayRecord = z.object({ id: int, episodeId: text, index: int, reward: real.nullable(), agrees: flag, columns: text.nullable(), createdAt: time });

/** Fields of "Annotation"; `source` narrower than the column's text (who made it). */
const annotationRecord = z.object({
  id: text,
  episodeId: text,
  turnIndex: int.nullable(),
  kind: text,
  tag: text.nullable(),
  text: text.nullable(),
  author: text,
  status: text,
  source: z.enum(["person", "detector", "scanner"]),
  provenance: text.nullable(),
  createdAt: time,
  updatedAt: time,
});

const transcriptMessageRecord = z.object({
  id: int,
  episodeId: text,
  seq: int,
  turnIndex: int,
  role: z.enum(["system", "user", "assistant"]),
  content: text,
  droppedTurns: int.nullable(),
});

const runRecord = z.object({
  id: text,
  name: text,
  config: text,
  status: text,
  total: int,
  done: int,
  solved: int,
  errors: int,
  owner: text.nullable(),
  createdAt: time,
  startedAt: time.nullable(),
  endedAt: time.nullable(),
  updatedAt: time,
});

const studyRecord = z.object({ id: text, name: text, config: text, createdAt: time, closedAt: time.nullable() });

const participantRecord = z.object({
  id: text,
  studyId: text,
  label: text,
  inviteHash: text,
  position: int,
  taskOrder: text,
  createdAt: time,
  expiresAt: time.nullable(),
  revokedAt: time.nullable(),
  consentedAt: time.nullable(),
  completedAt: time.nullable(),
  completionCode: text.nullable(),
});

const studyTaskClockRecord = z.object({ id: text, studyId: text, annotator: text, taskId: text, activeMs: int, firstAt: time, lastAt: time });

const sealRevealRecord = z.object({ id: text, studyId: text, what: text, createdAt: time });

/** `startedAt` is a BigInt column (ms since the epoch), read as a number. */
const recordingChunkRecord = z.object({
  id: int,
  episodeId: text,
  seq: int,
  turnIndex: int,
  startedAt: z.bigint(),
  events: text,
  bytes: int,
  cols: int.nullable(),
  rows: int.nullable(),
  truncated: flag,
});

const goldCacheRecord = z.object({
  id: int,
  environment: text,
  dataset: text,
  taskId: text,
  variant: text,
  observation: text,
  details: text.nullable(),
  createdAt: time,
});

const importedFileRecord = z.object({ id: int, contentHash: text, path: text, format: text, episodes: int, rejected: int, importedAt: time });

const sessionRecord = z.object({ id: text, role: text, participantId: text.nullable(), createdAt: time, expiresAt: time, revokedAt: time.nullable() });

/** The Turn table's record: the turn record beside the row's id, episode and insert time. */
const turnTableRecord = z.object({ id: int, episodeId: text, ...turnRecordSchema.shape, createdAt: time });

/** Every table of schema.prisma, as its record. */
const RECORDS = {
  Episode: episodeRecordSchema,
  Turn: turnTableRecord,
  TranscriptMessage: transcriptMessageRecord,
  Run: runRecord,
  Study: studyRecord,
  Participant: participantRecord,
  StudyTaskClock: studyTaskClockRecord,
  SealReveal: sealRevealRecord,
  Annotation: annotationRecord,
  RecordingChunk: recordingChunkRecord,
  TurnReplay: turnReplayRecord,
  GoldCache: goldCacheRecord,
  ImportedFile: importedFileRecord,
  Session: sessionRecord,
} as const;

const rowOf = <S extends z.ZodRawShape>(record: z.ZodObject<S>) => z.object(rowShapeOf(record.shape));

/** Every table's row as raw SQL reads it, derived from its record. */
export const ROW_SCHEMAS = {
  Episode: episodeRowSchema,
  Turn: turnRowSchema,
  TranscriptMessage: rowOf(transcriptMessageRecord).extend({ role: transcriptMessageRecord.shape.role }),
  Run: rowOf(runRecord),
  Study: rowOf(studyRecord),
  Participant: rowOf(participantRecord),
  StudyTaskClock: rowOf(studyTaskClockRecord),
  SealReveal: rowOf(sealRevealRecord),
  // A source outside the three is a bad row (the replay's annotations carry the union).
  Annotation: rowOf(annotationRecord).extend({ source: annotationRecord.shape.source }),
  RecordingChunk: rowOf(recordingChunkRecord),
  TurnReplay: rowOf(turnReplayRecord),
  GoldCache: rowOf(goldCacheRecord),
  ImportedFile: rowOf(importedFileRecord),
  Session: rowOf(sessionRecord),
} as const;

/** What a column holds, for code that moves or checks columns without knowing the table (lib/db/store-copy.ts, the migration test). */
export type ColumnKind = "text" | "number" | "flag" | "time" | "bigint";
export interface ColumnInfo {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
}

/** A table's columns in schema order, with their kinds and nullability (read off its record). */
export function tableColumns(table: keyof typeof RECORDS): ColumnInfo[] {
  return Object.entries(RECORDS[table].shape).map(([name, t]) => {
    const nullable = t instanceof z.ZodNullable;
    const inner = nullable ? (t as z.ZodNullable).unwrap() : t;
    const kind: ColumnKind =
      inner instanceof z.ZodDate
        ? "time"
        : inner instanceof z.ZodBoolean
          ? "flag"
          : inner instanceof z.ZodBigInt
            ? "bigint"
            : inner instanceof z.ZodNumber
              ? "number"
              : "text";
    return { name, kind, nullable };
  });
}

/** The tables of schema.prisma, by name. */
export const TABLES = Object.keys(RECORDS) as (keyof typeof RECORDS)[];

/**
 * A parser of one table's rows, for a query that selected some of its columns (and maybe
 * computed ones, given by `extra`): `.all(rows)` / `.one(row)` parse each row or throws a StorageError
 * naming the table, the row (its id, when selected) and the column.
 */
type Tables = typeof ROW_SCHEMAS;
/** A parsed row of a table. */
export type RowOf<T extends keyof Tables> = z.infer<Tables[T]>;

export function rowParser<T extends keyof Tables, K extends keyof RowOf<T> & string, X extends z.ZodRawShape = Record<never, never>>(
  table: T,
  columns: readonly K[],
  extra?: X,
) {
  const base = ROW_SCHEMAS[table] as z.ZodObject;
  const schema = base.pick(Object.fromEntries(columns.map((c) => [c, true])) as Record<string, true>).extend(extra ?? {});
  type Out = Pick<RowOf<T>, K> & z.infer<z.ZodObject<X>>;
  const one = (row: unknown): Out => {
    const r = schema.safeParse(row);
    if (r.success) return r.data as Out;
    const issue = r.error.issues[0]!;
    const column = String(issue.path[0] ?? "?");
    const id = row && typeof row === "object" && "id" in row ? ` ${JSON.stringify((row as { id: unknown }).id)}` : "";
    const got = row && typeof row === "object" ? (row as Record<string, unknown>)[column] : row;
    throw new StorageError(
      `the store's ${table} row${id} has a bad value in column "${column}": ${issue.message} (got ${JSON.stringify(got) ?? String(got)})`,
      {
        table,
        column,
      },
    );
  };
  return { one, all: (rows: readonly unknown[]): Out[] => rows.map(one) };
}

/** The columns of a table, in schema order (SELECT lists that want them all). */
export function columnsOf<T extends keyof Tables>(table: T): (keyof RowOf<T> & string)[] {
  return Object.keys(ROW_SCHEMAS[table].shape) as (keyof RowOf<T> & string)[];
}

/** Space-separated names (tags, flags) as a list. */
export function words(s: string): string[] {
  return s.split(" ").filter(Boolean);
}

/** Each table's model as Prisma's client (generated from schema.prisma) types it. */
type Models = {
  Episode: Model.Episode;
  Turn: Model.Turn;
  TranscriptMessage: Model.TranscriptMessage;
  Run: Model.Run;
  Study: Model.Study;
  Participant: Model.Participant;
  StudyTaskClock: Model.StudyTaskClock;
  SealReveal: Model.SealReveal;
  Annotation: Model.Annotation;
  RecordingChunk: Model.RecordingChunk;
  TurnReplay: Model.TurnReplay;
  GoldCache: Model.GoldCache;
  ImportedFile: Model.ImportedFile;
  Session: Model.Session;
};

/** Keys of a table's record whose values come back as Dates or bigints. */
const converted = Object.fromEntries(TABLES.map((t) => [t, tableColumns(t).filter((c) => c.kind === "time" || c.kind === "bigint")])) as Record<
  keyof typeof RECORDS,
  ColumnInfo[]
>;

/**
 * A parser of a table's rows into its records, as Prisma's client types them (times as Dates,
 * BigInt columns as bigints), for the functions that hand out a table's model: the row is parsed
 * as rowParser does, then its times are made Dates.
 */
export function recordParser<T extends keyof Models, K extends keyof Models[T] & keyof RowOf<T> & string>(table: T, columns: readonly K[]) {
  const rows = rowParser(table, columns);
  const convert = converted[table].filter((c) => (columns as readonly string[]).includes(c.name));
  const one = (row: unknown): Pick<Models[T], K> => {
    const r = rows.one(row) as Record<string, unknown>;
    for (const c of convert) {
      const v = r[c.name];
      if (v !== null) r[c.name] = c.kind === "time" ? new Date(v as number) : BigInt(v as number);
    }
    return r as Pick<Models[T], K>;
  };
  return { one, all: (rows: readonly unknown[]) => rows.map(one) };
}

/** A table's every column, as a SELECT list. */
export function selectAll(table: keyof typeof RECORDS): string {
  return columnsOf(table)
    .map((c) => `"${c}"`)
    .join(", ");
}

/*
 * TypeScript holds every table's record to the model Prisma generates from schema.prisma: a
 * column added, dropped, renamed, retyped or made nullable in one and not the other, or a model
 * without a record here, fails the typecheck. The migrations are held to the records by
 * lib/db/migrate.int.test.ts, on both engines. A record may be narrower than its column's text
 * (a turn's actor, an annotation's source: unions of names).
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Widened<R> = { [K in keyof R]: R[K] extends string ? string : R[K] };
const everyModelHasARecord: Same<keyof typeof RECORDS, Model.Prisma.ModelName> = true;
const recordsAreTheModels: { [T in keyof Models]: Same<Widened<z.infer<(typeof RECORDS)[T]>>, Models[T]> } = {
  Episode: true,
  Turn: true,
  TranscriptMessage: true,
  Run: true,
  Study: true,
  Participant: true,
  StudyTaskClock: true,
  SealReveal: true,
  Annotation: true,
  RecordingChunk: true,
  TurnReplay: true,
  GoldCache: true,
  ImportedFile: true,
  Session: true,
};
void everyModelHasARecord;
void recordsAreTheModels;
