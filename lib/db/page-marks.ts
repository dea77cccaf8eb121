/**
 * Marks along a deep walk of the episode list, on PostgreSQL: every MARK_EVERY-th episode of a
 * walk (a sort under the list's filters), by id, so that a page deep in the list starts its walk
 * at the mark before it instead of at the list's head. A page of the list by offset walks every
 * episode before it, and PostgreSQL's walk costs about three times SQLite's per index entry (at a
 * million episodes, 50,000 entries of the date index: 6-11 ms, against SQLite's whole page
 * 1,000 in 2.3-2.7 ms), so on PostgreSQL a deep page cost 2-3× SQLite's.
 *
 * A mark set holds for one state of the store: the database snapshot it was read under
 * (`pg_current_snapshot()`: the transactions that had committed, and those still running). A page
 * read from a mark carries its own statement's snapshot, and is kept only when the two are the
 * same, which is when no transaction has committed since (any write anywhere, in this store or
 * not, makes a new snapshot; a read does not). Otherwise the marks are dropped and the page is
 * walked from the head, as without them. So a page read from a mark is always the page the walk
 * gives; what the marks cost on a store being written to is one wasted page read, and no new set
 * is built for REBUILD_AFTER_STALE_MS.
 *
 * Marks are read after the page that needed them (not awaited: the page costs what it did), by
 * one statement that steps from mark to mark (each step an index walk of MARK_EVERY entries
 * starting at the last), so building them costs about one walk. A process keeps MARK_SETS_MAX
 * sets, the least recently used dropped first.
 */
import type { Sql } from "./sql";

/** A mark every this many episodes of a walk. */
export const MARK_EVERY = 500;
/** Walks (sort, filters, store) whose marks a process keeps. */
const MARK_SETS_MAX = 64;
/** After a set went stale, marks are not built again for this long (a store being written to changes its snapshot at every commit). */
const REBUILD_AFTER_STALE_MS = 10_000;

/** One walk of the list: `Episode e` (maybe joined) under conditions, in the order of `keys`. */
export interface Walk {
  /** The store (its URL): marks of one store never serve another's walk. */
  store: string;
  /** The FROM clause, over `e`. */
  from: string;
  conds: string[];
  params: Record<string, unknown>;
  /** The ordered expressions over `e`, the last `e."id"` (unique, so the order is total). */
  keys: string[];
  dir: "ASC" | "DESC";
}

interface MarkSet {
  /** The snapshot the marks were read under. */
  snapshot: string;
  /** ids[k]: the episode at position (k + 1) × MARK_EVERY of the walk (1-based). */
  ids: string[];
}

const sets = new Map<string, MarkSet>();
/** The walks whose marks are being read, and those reads. */
const building = new Map<string, Promise<void>>();
let staleAt = -Infinity;

function keyOf(w: Walk): string {
  return JSON.stringify([w.store, w.from, w.conds, w.keys, w.dir, w.params]);
}

const order = (w: Walk) => w.keys.map((k) => `${k} ${w.dir}`).join(", ");
const names = (w: Walk, alias: string) => w.keys.map((_, i) => `${alias}."k${i}"`).join(", ");
const selectKeys = (w: Walk) => w.keys.map((k, i) => `${k} AS "k${i}"`).join(", ");
const beyond = (w: Walk, values: string) => `(${w.keys.join(", ")}) ${w.dir === "ASC" ? ">" : "<"} (${values})`;
/** The walk's episodes after the row `alias` (its keys as k0, k1, ...). */
const after = (w: Walk, alias: string) => beyond(w, names(w, alias));
/**
 * The walk's episodes after the mark @__mark (an id): its keys are values looked up once (a
 * subquery each), so the walk starts at the mark in the sort's index; a mark joined as a row was
 * tested against every episode of a walk from the head.
 */
const afterMark = (w: Walk) => beyond(w, [...w.keys.slice(0, -1).map((k) => `(SELECT ${k} FROM "Episode" e WHERE e."id" = @__mark)`), "@__mark"].join(", "));
const where = (conds: string[]) => (conds.length ? `WHERE ${conds.join(" AND ")}` : "");

/** What the marks did in this process (tests, and a reader's curiosity). */
export const markCounts = {
  /** Pages read from a mark. */
  fromMark: 0,
  /** Pages whose mark set had gone stale (read again from the head). */
  stale: 0,
  /** Marks read. */
  read: 0,
};

/** Resolves once the marks being read now are held (tests). */
export async function marksRead(): Promise<void> {
  await Promise.all(building.values());
}

/** Forgets every mark (tests). */
export function clearMarks(): void {
  sets.clear();
  staleAt = -Infinity;
}

/**
 * One page of a walk by offset (`skip` rows, then `limit`), with `columns` over `e`: from the mark
 * before it when there is one for the store's current state, else from `plain` (the walk from the
 * head), after which the marks up to the page are read in the background.
 */
export async function readDeepPage(
  sql: Sql,
  w: Walk,
  { columns, limit, skip }: { columns: string; limit: number; skip: number },
  plain: () => Promise<Array<Record<string, unknown>>>,
): Promise<Array<Record<string, unknown>>> {
  const key = keyOf(w);
  const set = sets.get(key);
  const k = set ? Math.min(Math.floor(skip / MARK_EVERY), set.ids.length) : 0;
  if (set && k > 0) {
    sets.delete(key);
    const rows = await sql.all(
      `SELECT ${columns}, (SELECT pg_current_snapshot()::text) AS "__snap"
       FROM (SELECT e."id" FROM ${w.from} ${where([...w.conds, afterMark(w)])} ORDER BY ${order(w)} LIMIT @__limit OFFSET @__offset) k
       JOIN "Episode" e ON e."id" = k."id" ORDER BY ${order(w)}`,
      { ...w.params, __mark: set.ids[k - 1], __limit: limit, __offset: skip - k * MARK_EVERY },
    );
    // An empty page carries no snapshot to check: walked from the head.
    if (rows.length && rows[0]!.__snap === set.snapshot) {
      sets.set(key, set);
      markCounts.fromMark++;
      for (const r of rows) delete r.__snap;
      if (skip - k * MARK_EVERY >= MARK_EVERY) buildMarks(sql, w, key, skip, set);
      return rows;
    }
    if (rows.length) {
      markCounts.stale++;
      staleAt = Date.now();
    }
  }
  const rows = await plain();
  if (skip >= MARK_EVERY) buildMarks(sql, w, key, skip);
  return rows;
}

/** Reads the walk's marks up to position `skip` in the background, from `from`'s last mark when given (and still of this state). */
function buildMarks(sql: Sql, w: Walk, key: string, skip: number, from?: MarkSet): void {
  if (building.has(key) || Date.now() - staleAt < REBUILD_AFTER_STALE_MS) return;
  const count = Math.floor(skip / MARK_EVERY) - (from?.ids.length ?? 0);
  if (count <= 0) return;
  const start = from?.ids.at(-1);
  const first = start
    ? `SELECT ${selectKeys(w)} FROM ${w.from} ${where([...w.conds, afterMark(w)])} ORDER BY ${order(w)} LIMIT 1 OFFSET ${MARK_EVERY - 1}`
    : `SELECT ${selectKeys(w)} FROM ${w.from} ${where(w.conds)} ORDER BY ${order(w)} LIMIT 1 OFFSET ${MARK_EVERY - 1}`;
  const step = `SELECT ${selectKeys(w)} FROM ${w.from} ${where([...w.conds, after(w, "m")])} ORDER BY ${order(w)} LIMIT 1 OFFSET ${MARK_EVERY - 1}`;
  const cols = w.keys.map((_, i) => `"k${i}"`).join(", ");
  const last = `"k${w.keys.length - 1}"`;
  const read = sql
    .all<{ id: string; snap: string }>(
      `WITH RECURSIVE marks("n", ${cols}) AS (
         SELECT 1, f.* FROM (${first}) f
         UNION ALL
         SELECT m."n" + 1, x.* FROM marks m, LATERAL (${step}) x WHERE m."n" < @__count
       )
       SELECT m.${last} AS "id", (SELECT pg_current_snapshot()::text) AS "snap" FROM marks m ORDER BY m."n"`,
      { ...w.params, __count: count, ...(start ? { __mark: start } : {}) },
    )
    .then((rows) => {
      if (!rows.length) return;
      const snapshot = rows[0]!.snap;
      // Marks read from a set of another state are not that set's continuation.
      if (from && snapshot !== from.snapshot) return;
      sets.delete(key);
      sets.set(key, { snapshot, ids: [...(from?.ids ?? []), ...rows.map((r) => r.id)] });
      markCounts.read += rows.length;
      while (sets.size > MARK_SETS_MAX) sets.delete(sets.keys().next().value!);
    })
    .catch(() => {})
    .finally(() => building.delete(key));
  building.set(key, read);
}
