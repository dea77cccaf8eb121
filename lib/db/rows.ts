import "server-only";
import { z } from "zod";
import { StorageError } from "@/lib/errors";
import type { Episode as PrismaEpisode, Turn as PrismaTurn } from "./generated/client";
import { type EpisodeRecord, episodeRowSchema, flagColumn, numberColumn, textColumn, timeColumn, type TurnRecord, turnRowSchema } from "./record";

/**
 * The one schema of the store's raw SQL rows (lib/db/sql.ts reads them alike on both engines:
 * numbers, booleans as 1/0, times as Unix milliseconds), one a table of schema.prisma. Every
 * query that reads rows with raw SQL parses them here, picking the columns it selected, instead
 * of casting: a value of the wrong kind is a StorageError naming the table, the row and the
 * column. Rows come out with booleans as booleans and times as milliseconds (callers that hand
 * out Dates convert). Episode and Turn rows are their records' (lib/db/record.ts), read with the
 * column codecs declared there; the other tables read here are stated here.
 */

const text = textColumn;
const int = numberColumn;
const real = numberColumn;
const flag = flagColumn;
const time = timeColumn;

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

/*
 * The records (lib/db/record.ts) state the Episode and Turn tables' fields as schema.prisma does;
 * TypeScript holds them to the Prisma client generated from it, so a column added, dropped,
 * renamed or retyped in one and not the other fails the typecheck (the migrations are held to
 * schema.prisma by lib/db/schema-match.ts). A turn's actor is narrower in the record (a union of
 * the actors) than the column's text; its row id, episode and creation time are the table's.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const episodeRecordIsTheTable: Same<EpisodeRecord, PrismaEpisode> = true;
const turnRecordIsTheTable: Same<Omit<TurnRecord, "actor"> & { actor: string }, Omit<PrismaTurn, "id" | "episodeId" | "createdAt">> = true;
void episodeRecordIsTheTable;
void turnRecordIsTheTable;
