import "server-only";
import type Database from "better-sqlite3";
import { z } from "zod";
import { config } from "@/lib/config";
import { BadInputError, NotFoundError } from "@/lib/errors";
import type { Annotation } from "./generated/client";
import { uuidv7 } from "./ids";
import { withWriteLock } from "./lock";
import { recordParser, rowParser, selectAll } from "./rows";
import { cachedStatement, pgTransaction, withSql, withSqlTransaction, type Sql } from "./sql";
import { withRaw } from "./sqlite";

export type { Annotation } from "./generated/client";

const annotationRecord = recordParser("Annotation", [
  "id",
  "episodeId",
  "turnIndex",
  "kind",
  "tag",
  "text",
  "author",
  "status",
  "source",
  "provenance",
  "createdAt",
  "updatedAt",
]);
const tagRow = rowParser("Annotation", ["tag"]);

/** Rewrites Episode.tags (the accepted tag names, for the list) from the episode's annotations: a person's, not the machine tags. */
async function refreshEpisodeTags(sql: Sql, episodeId: string, now: number): Promise<void> {
  const rows = tagRow.all(
    await sql.all(`SELECT "tag" FROM "Annotation" WHERE "episodeId" = ? AND "kind" = 'tag' AND "status" = 'accepted' AND "source" = 'person'`, [episodeId]),
  );
  const tags = [...new Set(rows.map((r) => r.tag).filter((t): t is string => Boolean(t)))].sort();
  await sql.run(`UPDATE "Episode" SET "tags" = ?, "updatedAt" = ? WHERE "id" = ?`, [tags.join(" "), sql.dialect.time(now), episodeId]);
}

/** One annotation, or null. */
async function getAnnotation(sql: Sql, id: string): Promise<Annotation | null> {
  const row = await sql.get(`SELECT ${selectAll("Annotation")} FROM "Annotation" WHERE "id" = ?`, [id]);
  return row ? annotationRecord.one(row) : null;
}

const TAG_RE = /^[a-z0-9][a-z0-9_.:-]{0,63}$/;

/** Adds a tag or a note to an episode or one of its turns. */
export async function createAnnotation(input: {
  episodeId: string;
  turnIndex?: number | null;
  kind: "tag" | "note";
  tag?: string | null;
  text?: string | null;
  author: string;
  status?: "suggested" | "accepted" | "rejected";
}): Promise<Annotation> {
  if (input.kind === "tag" && !(input.tag && TAG_RE.test(input.tag)))
    throw new BadInputError("a tag is 1-64 characters of a-z, 0-9, _ . : - (starting with a letter or digit)", "tag");
  if (input.kind === "note" && !input.text?.trim()) throw new BadInputError("a note needs text", "text");
  return withSqlTransaction(async (sql) => {
    if (!(await sql.get(`SELECT "id" FROM "Episode" WHERE "id" = ?`, [input.episodeId]))) throw new NotFoundError(`episode ${input.episodeId}`);
    const now = Date.now();
    const created: Annotation = {
      id: uuidv7(now),
      episodeId: input.episodeId,
      turnIndex: input.turnIndex ?? null,
      kind: input.kind,
      tag: input.tag ?? null,
      text: input.text ?? null,
      author: input.author,
      status: input.status ?? "accepted",
      source: "person",
      provenance: null,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    };
    const time = sql.dialect.time(now);
    await sql.run(`INSERT INTO "Annotation" (${MACHINE_COLS.map((c) => `"${c}"`).join(", ")}) VALUES (${MACHINE_COLS.map(() => "?").join(", ")})`, [
      ...MACHINE_COLS.map((c) => (c === "createdAt" || c === "updatedAt" ? time : created[c])),
    ]);
    await refreshEpisodeTags(sql, input.episodeId, now);
    return created;
  });
}

/** Accepts or rejects a (suggested) annotation. */
export async function updateAnnotationStatus({ id, status }: { id: string; status: "suggested" | "accepted" | "rejected" }): Promise<Annotation> {
  return withSqlTransaction(async (sql) => {
    const a = await getAnnotation(sql, id);
    if (!a) throw new NotFoundError(`annotation ${id}`);
    const now = Date.now();
    await sql.run(`UPDATE "Annotation" SET "status" = ?, "updatedAt" = ? WHERE "id" = ?`, [status, sql.dialect.time(now), id]);
    await refreshEpisodeTags(sql, a.episodeId, now);
    return { ...a, status, updatedAt: new Date(now) };
  });
}

export async function deleteAnnotationById({ id }: { id: string }): Promise<void> {
  await withSqlTransaction(async (sql) => {
    const a = await getAnnotation(sql, id);
    if (!a) throw new NotFoundError(`annotation ${id}`);
    await sql.run(`DELETE FROM "Annotation" WHERE "id" = ?`, [id]);
    await refreshEpisodeTags(sql, a.episodeId, Date.now());
  });
}

const tagCount = rowParser("Annotation", ["tag"], { count: z.number() });

/** The most used accepted tags (a person's), for the failure-analysis view and the tag picker; ties by name. */
export async function countTags({ limit = 50 }: { limit?: number } = {}): Promise<Array<{ tag: string; count: number }>> {
  return withSql(async (sql) =>
    tagCount
      .all(
        await sql.all(
          `SELECT "tag", COUNT(*) AS "count" FROM "Annotation" WHERE "kind" = 'tag' AND "status" = 'accepted' AND "source" = 'person' AND "tag" IS NOT NULL
           GROUP BY "tag" ORDER BY COUNT(*) DESC, "tag" LIMIT ?`,
          [limit],
        ),
      )
      .map((r) => ({ tag: r.tag as string, count: r.count })),
  );
}

/** Who made an annotation: a person, or a machine (a detector's rule or a scanner's model). */
export const annotationSourceSchema = z.enum(["person", "detector", "scanner"]);
export type AnnotationSource = z.infer<typeof annotationSourceSchema>;
export type MachineSource = Exclude<AnnotationSource, "person">;

/** A detector tag's provenance: the rule and its version. */
export const detectorProvenanceSchema = z.object({ detector: z.string().min(1), version: z.number().int().nonnegative() });
/** A scanner tag's provenance: the scan, the model asked, the prompt and when (ISO time). */
export const scannerProvenanceSchema = z.object({ scanId: z.string().min(1), model: z.string().min(1), prompt: z.string(), at: z.string().min(1) });
export type DetectorProvenance = z.infer<typeof detectorProvenanceSchema>;
export type ScannerProvenance = z.infer<typeof scannerProvenanceSchema>;
const PROVENANCE_OF = { detector: detectorProvenanceSchema, scanner: scannerProvenanceSchema } as const;

/** One machine tag to write: on a turn or (turnIndex null) on the episode; `text` is its evidence. */
export interface MachineTagInput {
  episodeId: string;
  turnIndex: number | null;
  tag: string;
  text?: string | null;
  /** The producer: a detector's name, or a scanner's scan id. Re-running it replaces its own tags. */
  author: string;
  provenance: DetectorProvenance | ScannerProvenance;
}

/**
 * A write of machine tags: for each episode in `episodeIds`, the tags of `source` made by one of
 * `authors` are replaced by those in `tags` (an episode a producer no longer fires on loses its old
 * tags). Idempotent: the same write twice leaves the same rows.
 */
export interface MachineTagWrite {
  source: MachineSource;
  authors: readonly string[];
  episodeIds: readonly string[];
  tags: readonly MachineTagInput[];
}

const MACHINE_COLS = ["id", "episodeId", "turnIndex", "kind", "tag", "text", "author", "status", "source", "provenance", "createdAt", "updatedAt"] as const;
const MACHINE_INSERT = `INSERT INTO "Annotation" (${MACHINE_COLS.map((c) => `"${c}"`).join(", ")}) VALUES (${MACHINE_COLS.map(() => "?").join(", ")})`;
const EPISODES_PER_DELETE = 200;

function checkMachineWrite(w: MachineTagWrite): void {
  const provenance = PROVENANCE_OF[w.source];
  const ids = new Set(w.episodeIds);
  const authors = new Set(w.authors);
  for (const t of w.tags) {
    if (!TAG_RE.test(t.tag)) throw new BadInputError(`machine tag "${t.tag}": a tag is 1-64 characters of a-z, 0-9, _ . : -`, "tag");
    if (!ids.has(t.episodeId)) throw new BadInputError(`machine tag ${t.tag} is on episode ${t.episodeId}, which the write does not cover`, "episodeIds");
    if (!authors.has(t.author)) throw new BadInputError(`machine tag ${t.tag} is by ${t.author}, which the write does not name`, "authors");
    const p = provenance.safeParse(t.provenance);
    if (!p.success) throw new BadInputError(`machine tag ${t.tag}: ${w.source} provenance ${JSON.stringify(t.provenance)} is not valid`, "provenance");
  }
}

function machineRows(w: MachineTagWrite, time: (ms: number) => unknown): unknown[][] {
  const now = time(Date.now());
  return w.tags.map((t) => [
    uuidv7(),
    t.episodeId,
    t.turnIndex,
    "tag",
    t.tag,
    t.text ?? null,
    t.author,
    "accepted",
    w.source,
    JSON.stringify(t.provenance),
    now,
    now,
  ]);
}

function deleteSql(episodes: number, authors: number): string {
  const marks = (n: number) => Array(n).fill("?").join(", ");
  return `DELETE FROM "Annotation" WHERE "episodeId" IN (${marks(episodes)}) AND "source" = ? AND "author" IN (${marks(authors)})`;
}

/** writeMachineTags on a SQLite connection, inside the caller's transaction (the bulk importer). */
export function writeMachineTagsRaw(db: Database.Database, w: MachineTagWrite): void {
  checkMachineWrite(w);
  if (!w.authors.length) return;
  for (let i = 0; i < w.episodeIds.length; i += EPISODES_PER_DELETE) {
    const part = w.episodeIds.slice(i, i + EPISODES_PER_DELETE);
    cachedStatement(db, deleteSql(part.length, w.authors.length)).run(...part, w.source, ...w.authors);
  }
  const insert = cachedStatement(db, MACHINE_INSERT);
  for (const row of machineRows(w, (ms) => ms)) insert.run(...row);
}

/** writeMachineTags on PostgreSQL, inside the caller's transaction. */
export async function writeMachineTagsSql(sql: Sql, w: MachineTagWrite): Promise<void> {
  checkMachineWrite(w);
  if (!w.authors.length) return;
  for (let i = 0; i < w.episodeIds.length; i += EPISODES_PER_DELETE) {
    const part = w.episodeIds.slice(i, i + EPISODES_PER_DELETE);
    await sql.run(deleteSql(part.length, w.authors.length), [...part, w.source, ...w.authors]);
  }
  await insertMachineRows(sql, machineRows(w, sql.dialect.time));
}

/** Machine tag rows (MACHINE_COLS order) in multi-row INSERTs (PostgreSQL). */
async function insertMachineRows(sql: Sql, rows: unknown[][]): Promise<void> {
  const PER = 500;
  for (let i = 0; i < rows.length; i += PER) {
    const part = rows.slice(i, i + PER);
    const values = part.map(() => `(${MACHINE_COLS.map(() => "?").join(", ")})`).join(", ");
    await sql.run(`INSERT INTO "Annotation" (${MACHINE_COLS.map((c) => `"${c}"`).join(", ")}) VALUES ${values}`, part.flat());
  }
}

/**
 * Writes machine tags in bulk (one transaction): replaces, on each episode the write covers, the
 * tags its producers made before. Person tags and Episode.tags are left alone.
 */
export async function writeMachineTags(w: MachineTagWrite): Promise<void> {
  checkMachineWrite(w);
  const store = config().store;
  if (store.kind === "postgresql") {
    await pgTransaction(store.url, (sql) => writeMachineTagsSql(sql, w));
    return;
  }
  await withWriteLock(() => withRaw((db) => db.transaction(() => writeMachineTagsRaw(db, w)).immediate()));
}

/** A stored machine tag, with its provenance parsed. */
export interface MachineTag {
  id: string;
  episodeId: string;
  turnIndex: number | null;
  tag: string;
  text: string | null;
  author: string;
  source: MachineSource;
  provenance: DetectorProvenance | ScannerProvenance | null;
  createdAt: number;
}

/** A tag annotation's row: its tag is set (a null one is a bad row). */
const machineTagRow = rowParser("Annotation", ["id", "episodeId", "turnIndex", "text", "author", "provenance", "createdAt"], { tag: z.string() });
const personTagRow = rowParser("Annotation", ["episodeId"], { tag: z.string() });

function parseProvenance(source: MachineSource, text: string | null): DetectorProvenance | ScannerProvenance | null {
  if (!text) return null;
  try {
    const p = PROVENANCE_OF[source].safeParse(JSON.parse(text));
    return p.success ? p.data : null;
  } catch {
    return null;
  }
}

/**
 * Machine tags of a source, optionally only one tag name, one producer or some episodes; in
 * episode, turn and tag order.
 */
export async function listMachineTagsBySource({
  source,
  tag,
  author,
  episodeIds,
}: {
  source: MachineSource;
  tag?: string;
  author?: string;
  episodeIds?: readonly string[];
}): Promise<MachineTag[]> {
  if (episodeIds && !episodeIds.length) return [];
  return withSql(async (sql) => {
    const where = [`"source" = ?`, `"kind" = 'tag'`];
    const params: unknown[] = [source];
    if (tag !== undefined) {
      where.push(`"tag" = ?`);
      params.push(tag);
    }
    if (author !== undefined) {
      where.push(`"author" = ?`);
      params.push(author);
    }
    const out: MachineTag[] = [];
    const parts = episodeIds ? Array.from({ length: Math.ceil(episodeIds.length / 500) }, (_, i) => episodeIds.slice(i * 500, i * 500 + 500)) : [null];
    for (const part of parts) {
      const w = part ? [...where, `"episodeId" IN (${part.map(() => "?").join(", ")})`] : where;
      const rows = machineTagRow.all(
        await sql.all(
          `SELECT "id", "episodeId", "turnIndex", "tag", "text", "author", "provenance", "createdAt" FROM "Annotation" WHERE ${w.join(" AND ")}`,
          part ? [...params, ...part] : params,
        ),
      );
      for (const r of rows) {
        const { id, episodeId, turnIndex, tag, text, author, createdAt } = r;
        out.push({ id, episodeId, turnIndex, tag, text, author, source, provenance: parseProvenance(source, r.provenance), createdAt });
      }
    }
    return out.sort(
      (a, b) =>
        a.episodeId.localeCompare(b.episodeId) || (a.turnIndex ?? -1) - (b.turnIndex ?? -1) || a.tag.localeCompare(b.tag) || a.author.localeCompare(b.author),
    );
  });
}

/** A new episode's detector tag, as the bulk importer stores it with the episode (source detector). */
export type EpisodeDetectorTag = Omit<MachineTagInput, "episodeId" | "provenance"> & { provenance: DetectorProvenance };

/** Stores a just-inserted episode's detector tags on a SQLite connection, inside the importer's transaction. */
export function insertDetectorTagsRaw(db: Database.Database, episodeId: string, tags: readonly EpisodeDetectorTag[], now: number): void {
  if (!tags.length) return;
  const insert = cachedStatement(db, MACHINE_INSERT);
  for (const t of tags)
    insert.run(uuidv7(), episodeId, t.turnIndex, "tag", t.tag, t.text ?? null, t.author, "accepted", "detector", JSON.stringify(t.provenance), now, now);
}

/** The same on PostgreSQL for many episodes at once, inside the importer's transaction. */
export async function insertDetectorTagsSql(sql: Sql, tags: readonly (EpisodeDetectorTag & { episodeId: string })[], now: number): Promise<void> {
  const time = sql.dialect.time(now);
  await insertMachineRows(
    sql,
    tags.map((t) => [
      uuidv7(),
      t.episodeId,
      t.turnIndex,
      "tag",
      t.tag,
      t.text ?? null,
      t.author,
      "accepted",
      "detector",
      JSON.stringify(t.provenance),
      time,
      time,
    ]),
  );
}

/**
 * The accepted tags a person gave each of these episodes (on the episode or one of its turns):
 * episode id → tag names. An episode no person tagged is absent. A scanner's agreement with people
 * reads it (lib/scan/scans.ts).
 */
export async function listPersonTagsByEpisodeIds({ episodeIds }: { episodeIds: readonly string[] }): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (!episodeIds.length) return out;
  return withSql(async (sql) => {
    for (let i = 0; i < episodeIds.length; i += 500) {
      const part = episodeIds.slice(i, i + 500);
      const rows = personTagRow.all(
        await sql.all(
          `SELECT "episodeId", "tag" FROM "Annotation"
           WHERE "source" = 'person' AND "kind" = 'tag' AND "status" = 'accepted' AND "tag" IS NOT NULL AND "episodeId" IN (${part.map(() => "?").join(", ")})`,
          part,
        ),
      );
      for (const r of rows) {
        const set = out.get(r.episodeId) ?? new Set<string>();
        set.add(r.tag);
        out.set(r.episodeId, set);
      }
    }
    return out;
  });
}
