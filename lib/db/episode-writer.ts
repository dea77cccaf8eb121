import "server-only";
import { z } from "zod";
import { episodeRecordSchema, type EpisodeRecord } from "./record";
import type { Codec } from "./turn-writer";

/**
 * The one mapping of an episode to its row, live and in bulk, as lib/db/turn-writer.ts is for
 * turns: the record's (lib/db/record.ts) start fields with their defaults, which createEpisode
 * (lib/db/episodes.ts) stores for a new live episode and insertEpisodesBulk (lib/db/bulk-import.ts)
 * for an imported one, and the record's column values in column order, which the bulk writer binds.
 */

/** The fields a player states when it starts an episode, in the record's column order. */
const START_KEYS = [
  "environment",
  "dataset",
  "taskId",
  "taskIndex",
  "query",
  "gold",
  "playerKind",
  "annotator",
  "model",
  "policy",
  "turnLimit",
  "mode",
  "feedback",
  "backend",
  "parentEpisodeId",
  "branchTurn",
  "runId",
  "studyId",
  "hardness",
  "db",
] as const satisfies readonly (keyof EpisodeRecord)[];
type StartKey = (typeof START_KEYS)[number];
/** The start fields every episode states; the others it may leave out (null, or the default). */
type RequiredStartKey = "environment" | "dataset" | "taskId" | "query" | "turnLimit" | "playerKind";

/** An episode's start as its player gives it: the record's start fields, those it may leave out optional. */
export type EpisodeStart = Pick<EpisodeRecord, RequiredStartKey> & Partial<Pick<EpisodeRecord, Exclude<StartKey, RequiredStartKey>>>;
/** An episode's start fields as stored: all of them. */
export type EpisodeStartFields = Pick<EpisodeRecord, StartKey>;

/**
 * A new live episode, as its player starts it (played in the Studio, by a person or a model): its
 * start, with the id when the caller chose it already (a live episode names itself before it is
 * stored); the rest of the record (status, reward, counters, times) is the store's.
 */
export type NewEpisodeInput = Omit<EpisodeStart, "playerKind" | "mode" | "feedback"> & {
  id?: string;
  playerKind: "human" | "model" | "imported";
  mode?: "play" | "baseline" | "eval" | "import";
  feedback?: "none" | "reward";
};

/** What a start field left out is stored as: the feedback the player saw is the reward's, unless it says; the mode is the writer's. */
const startDefault = (key: StartKey, mode: string): string | null => (key === "mode" ? mode : key === "feedback" ? "reward" : null);

/** An episode's start fields as stored: what it leaves out is null, or its default (`mode`: the writer's, play live and import in bulk). */
export function episodeStartFields(start: EpisodeStart, { mode }: { mode: string }): EpisodeStartFields {
  const out: Record<string, unknown> = {};
  for (const k of START_KEYS) out[k] = start[k] ?? startDefault(k, mode);
  return out as EpisodeStartFields;
}

/** A record field's value with its times as Unix milliseconds (how imports carry them). */
type InMs<T> = T extends Date ? number : T extends Date | null ? number | null : T;
/** The episode record with its times as Unix milliseconds: the values a row is bound from. */
export type EpisodeValues = { [K in keyof EpisodeRecord]: InMs<EpisodeRecord[K]> };
/** Fields of the record with their times as Unix milliseconds. */
export type EpisodeFieldsInMs<K extends keyof EpisodeRecord> = { [P in K]: InMs<EpisodeRecord[P]> };

/** How each column's value is bound: booleans and times in the engine's form (the record's types say which), the rest as they are. */
type ColumnKind = "flag" | "time" | "plain";
function kindOf(t: z.ZodType): ColumnKind {
  const inner = t instanceof z.ZodNullable ? (t.unwrap() as z.ZodType) : t;
  return inner instanceof z.ZodBoolean ? "flag" : inner instanceof z.ZodDate ? "time" : "plain";
}

/**
 * A row's binder for the episode columns `columns` (in that order): it appends an episode's values,
 * booleans and times in the engine's form, to a statement's positional parameters. The values are
 * its start fields (episodeStartFields) and the rest of the columns, given apart: merging them into
 * one object cost a bulk import ten times what binding did.
 */
export function episodeRowBinder<C extends keyof EpisodeRecord>(
  columns: readonly C[],
): (out: unknown[], start: EpisodeStartFields, rest: Pick<EpisodeValues, Exclude<C, StartKey>>, c: Codec) => void {
  const startKeys = new Set<string>(START_KEYS);
  const kinds = columns.map((k) => kindOf(episodeRecordSchema.shape[k]));
  const fromStart = columns.map((k) => startKeys.has(k));
  return (out, start, rest, c) => {
    for (let i = 0; i < columns.length; i++) {
      const k = columns[i]!;
      const v = (fromStart[i] ? start[k as StartKey] : rest[k as Exclude<C, StartKey>]) as unknown;
      const kind = kinds[i];
      out.push(v == null ? null : kind === "flag" ? c.bool(v as boolean) : kind === "time" ? c.time(v as number) : v);
    }
  };
}
