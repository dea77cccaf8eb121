import "server-only";
import { z } from "zod";
import { StorageError } from "@/lib/errors";
import { turnRecordSchema } from "./turn-record";

/**
 * The one schema of the store's raw SQL rows (lib/db/sql.ts reads them alike on both engines:
 * numbers, booleans as 1/0, times as Unix milliseconds), one a table of schema.prisma. Every
 * query that reads rows with raw SQL parses them here, picking the columns it selected, instead
 * of casting: a value of the wrong kind is a StorageError naming the table, the row and the
 * column. Rows come out with booleans as booleans and times as milliseconds (callers that hand
 * out Dates convert).
 */

const text = z.string();
/** An INTEGER column: a number, not checked integral (SQLite keeps a non-integral value written to one as is, and old rows may hold one). */
const int = z.number();
const real = z.number();
/** A boolean column: 1/0 on both engines (lib/db/postgres.ts maps PostgreSQL's bool to them). */
const flag = z.union([z.literal(0), z.literal(1)], { error: "expected a boolean stored as 0 or 1" }).transform((v) => v === 1);
/** A time column: Unix milliseconds. */
const time = z.number({ error: "expected a time in Unix milliseconds" });

/** Columns of "Episode" (schema.prisma model Episode). */
const episodeRowSchema = z.object({
  id: text,
  environment: text,
  dataset: text,
  taskId: text,
  taskIndex: int.nullable(),
  query: text,
  gold: text.nullable(),
  playerKind: text,
  annotator: text.nullable(),
  model: text.nullable(),
  policy: text.nullable(),
  turnLimit: int,
  mode: text,
  feedback: text,
  backend: text.nullable(),
  status: text,
  errorReason: text.nullable(),
  reward: real.nullable(),
  breakdown: text.nullable(),
  success: flag,
  solvedAtTurn: int.nullable(),
  goldObservation: text.nullable(),
  agentObservation: text.nullable(),
  startedAt: time,
  firstActionAt: time.nullable(),
  endedAt: time.nullable(),
  durationMs: int.nullable(),
  sourceFile: text.nullable(),
  sourceKey: text.nullable(),
  parentEpisodeId: text.nullable(),
  branchTurn: int.nullable(),
  runId: text.nullable(),
  studyId: text.nullable(),
  hardness: text.nullable(),
  db: text.nullable(),
  tags: text,
  flags: text,
  turnCount: int,
  turnsTaken: int.nullable(),
  invalidCount: int,
  checkedCount: int,
  createdAt: time,
  updatedAt: time,
  searchKey: int.nullable(),
});

/**
 * A record field's column as stored: the same value with the engines' codecs (booleans as 1/0,
 * times as milliseconds), never checked tighter than the column (any text, any number).
 */
type ColumnOf<T> =
  T extends z.ZodNullable<infer I>
    ? z.ZodNullable<ColumnOf<I>>
    : T extends z.ZodBoolean
      ? typeof flag
      : T extends z.ZodDate
        ? typeof time
        : T extends z.ZodNumber
          ? typeof real
          : typeof text;
function columnOf(t: z.ZodType): z.ZodType {
  if (t instanceof z.ZodNullable) return columnOf(t.unwrap() as z.ZodType).nullable();
  if (t instanceof z.ZodBoolean) return flag;
  if (t instanceof z.ZodDate) return time;
  if (t instanceof z.ZodNumber) return real;
  return text;
}
function columnsOfRecord<S extends z.ZodRawShape>(shape: S): { [K in keyof S]: ColumnOf<S[K]> } {
  return Object.fromEntries(Object.entries(shape).map(([k, t]) => [k, columnOf(t as z.ZodType)])) as { [K in keyof S]: ColumnOf<S[K]> };
}

/** Columns of "Turn" (schema.prisma model Turn): the turn record's (lib/db/turn-record.ts), beside the row's id, episode and insert time. */
const turnRowSchema = z.object({ id: int, episodeId: text, ...columnsOfRecord(turnRecordSchema.shape), createdAt: time });

/** Columns of "Annotation" (schema.prisma model Annotation). */
const annotationRowSchema = z.object({
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

/** Columns of "TurnReplay" (schema.prisma model TurnReplay). */
const turnReplayRowSchema = z.object({
  id: int,
  episodeId: text,
  index: int,
  reward: real.nullable(),
  agrees: flag,
  columns: text.nullable(),
  createdAt: time,
});

/** The tables whose rows this module parses, by name. */
export const ROW_SCHEMAS = { Episode: episodeRowSchema, Turn: turnRowSchema, Annotation: annotationRowSchema, TurnReplay: turnReplayRowSchema } as const;

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
