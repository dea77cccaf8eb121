/**
 * What the episode list holds between requests on PostgreSQL, each for one state of the store:
 * marks along deep walks, and filters' totals.
 *
 * A statement that uses a held thing reads the store's state beside what it reads, and the held
 * thing is used only when that state is the one it was read under; otherwise it is read again. So
 * what a held thing gives is always what reading afresh would give; on a store being written to,
 * it costs one wasted read now and then. The state:
 * - Marks: the count of statements that wrote the list's tables, Episode and its search document
 *   (the "ic_list_writes" sequence, bumped by a trigger inside each writing transaction and seen
 *   at once, before that transaction commits). Marks are read in three statements: the count;
 *   then whether any transaction holds a write lock on those tables (one that wrote before the
 *   count was read and has not committed holds it until it ends: then no marks are kept); then
 *   the marks. Every write the marks do not see bumped the count after it was read, so they hold
 *   while the count is the same. Commits elsewhere (other tables, other databases) leave them be.
 * - Totals: the database snapshot (`pg_current_snapshot()`), which any commit anywhere on the
 *   server changes. A total's count and sample are statements of their own, and the two checks
 *   before them would cost a cold page two round trips.
 *
 * Marks: every MARK_EVERY-th episode of a walk (a sort under the list's filters), by id, so that a
 * page deep in the list starts its walk at the mark before it instead of at the list's head. A
 * page by offset walks every episode before it, and PostgreSQL's walk costs about three times
 * SQLite's per index entry (at a million episodes, 50,000 entries of the date index: 6-11 ms,
 * against SQLite's whole page 1,000 in 2.3-2.7 ms), so on PostgreSQL a deep page cost 2-3×
 * SQLite's. Marks are read after the page that needed them (not awaited: the page costs what it
 * did), by one statement that steps from mark to mark (each step an index walk of MARK_EVERY
 * entries starting at the last), so reading them costs about one walk. After a set went stale, no
 * new one is read for REBUILD_AFTER_STALE_MS.
 *
 * Totals: a filter's total (its capped count and, past COUNT_EXACT_UP_TO, the sample's estimate),
 * and a search's hits as counted, so the next page of the same filter does not count again
 * (env=sql and solved=no at a million episodes: 10,001 index entries and a sample of 8,000 rows,
 * 5-8 ms of a page's 7-9; 'command not found', before a search alone was counted from its
 * bitmap: 10,001 hits, each a row of the search table, and the sample, 15-18 ms of 20).
 *
 * A process holds HELD_MAX of each, the least recently used dropped first.
 */
import type { Sql } from "./sql";

/**
 * A mark every this many episodes of a walk: the viewer's page size, so that its pages start at a
 * mark. Such a page is one statement with the mark its only value (an unfiltered walk's is kept
 * prepared, and the server stops planning it after five runs: 0.4 of its 0.7 ms); another page
 * size walks on from the mark before it.
 */
export const MARK_EVERY = 50;
/** Walks (sort, filters, store) whose marks, and filters whose totals, a process holds. */
const HELD_MAX = 64;
/** Marks a walk holds at most (its first million episodes); past them a page walks on from the last. */
const MARKS_MAX = 20_000;
/** After a set went stale, marks are not read again for this long (a store being written to moves the count at every write). */
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

/** Things held for the state of the store they were read under, by key; the least recently used dropped past HELD_MAX. */
class Held<T> {
  private readonly items = new Map<string, { state: string; value: T }>();
  /** The item, whatever its state (made most recent). */
  get(key: string): { state: string; value: T } | undefined {
    const item = this.items.get(key);
    if (item) {
      this.items.delete(key);
      this.items.set(key, item);
    }
    return item;
  }
  set(key: string, state: string, value: T): void {
    this.items.delete(key);
    this.items.set(key, { state, value });
    while (this.items.size > HELD_MAX) this.items.delete(this.items.keys().next().value!);
  }
  delete(key: string): void {
    this.items.delete(key);
  }
  clear(): void {
    this.items.clear();
  }
}

/** Per walk, held for the write count: ids[k] is the episode at position (k + 1) × MARK_EVERY of the walk (1-based). */
const sets = new Held<string[]>();
/** A filter's counts: its total, whether exact, and a search's hits as counted (up to the limits that decide how its page is read). */
export interface HeldTotal {
  total: number;
  exact: boolean;
  hits?: number;
}
/** Per filter (store, conditions, values), held for the snapshot: its counts. */
const totals = new Held<HeldTotal>();
/** The walks whose marks are being read, and those reads. */
const building = new Map<string, Promise<void>>();
let staleAt = -Infinity;

function keyOf(w: Walk): string {
  return JSON.stringify([w.store, w.from, w.conds, w.keys, w.dir, w.params]);
}

/** The ORDER BY of a walk over `keys` (the list's pages read theirs with it too). */
export const walkOrder = (keys: string[], dir: "ASC" | "DESC") => keys.map((k) => `${k} ${dir}`).join(", ");
const order = (w: Walk) => walkOrder(w.keys, w.dir);
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

/** What was held, used and dropped in this process (tests, and a reader's curiosity). */
export const heldCounts = {
  /** Pages read from a mark. */
  fromMark: 0,
  /** Pages whose mark set had gone stale (read again from the head). */
  stale: 0,
  /** Marks read. */
  read: 0,
  /** Totals taken as held. */
  totals: 0,
};

/** The key of a filter's total in `store`: its conditions and their values. */
function totalKey(store: string, conds: string[], params: Record<string, unknown>): string {
  return JSON.stringify([store, conds, params]);
}

/** The total held for a filter under `snapshot` (the current statement's), if any. */
export function heldTotal(store: string, conds: string[], params: Record<string, unknown>, snapshot: string): HeldTotal | undefined {
  const item = totals.get(totalKey(store, conds, params));
  if (item?.state !== snapshot) return undefined;
  heldCounts.totals++;
  return item.value;
}

/** Holds a filter's total, counted after `snapshot` was read (a later commit makes it a snapshot no statement sees again). */
export function holdTotal(store: string, conds: string[], params: Record<string, unknown>, snapshot: string, value: HeldTotal): void {
  totals.set(totalKey(store, conds, params), snapshot, value);
}

/** A column "snap": the statement's snapshot, read once (a subquery). */
export const SNAPSHOT_COLUMN = `(SELECT pg_current_snapshot()::text) AS "snap"`;
/** The write count (a sequence's last_value does not move on its first nextval; is_called does). */
const WRITES = `SELECT CAST(CASE WHEN "is_called" THEN "last_value" ELSE 0 END AS TEXT) FROM "ic_list_writes"`;
/** Whether a transaction (not this one) holds or waits for a lock that writes the list's tables. */
const WRITING = `SELECT EXISTS (
  SELECT 1 FROM pg_locks l
  WHERE l."database" = (SELECT d."oid" FROM pg_database d WHERE d."datname" = current_database())
    AND l."relation" IN (to_regclass('"Episode"'), to_regclass('"EpisodeText"'))
    AND l."mode" IN ('RowExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')
    AND l."pid" <> pg_backend_pid()) AS "writing"`;

/** Resolves once the marks being read now are held (tests). */
export async function marksRead(): Promise<void> {
  await Promise.all(building.values());
}

/** Forgets every mark and total (tests, and the bench's reads with nothing held). */
export function clearHeld(): void {
  sets.clear();
  totals.clear();
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
  const held = sets.get(key);
  const k = held ? Math.min(Math.floor(skip / MARK_EVERY), held.value.length) : 0;
  if (held && k > 0) {
    const on = skip - k * MARK_EVERY;
    const rows = await sql.all(
      `SELECT ${columns}, (${WRITES}) AS "writes"
       FROM (SELECT e."id" FROM ${w.from} ${where([...w.conds, afterMark(w)])} ORDER BY ${order(w)} LIMIT ${Math.trunc(limit)}${on ? " OFFSET @__offset" : ""}) k
       JOIN "Episode" e ON e."id" = k."id" ORDER BY ${order(w)}`,
      { ...w.params, __mark: held.value[k - 1], ...(on ? { __offset: on } : {}) },
      // A page at a mark of an unfiltered walk: the same plan for every mark.
      { onePlan: !on && !Object.keys(w.params).length },
    );
    // An empty page carries no count to check: walked from the head.
    if (rows.length && rows[0]!.writes === held.state) {
      heldCounts.fromMark++;
      for (const r of rows) delete r.writes;
      if (on >= MARK_EVERY) readMarks(sql, w, key, skip, held);
      return rows;
    }
    sets.delete(key);
    if (rows.length) {
      heldCounts.stale++;
      staleAt = Date.now();
    }
  }
  const rows = await plain();
  if (skip >= MARK_EVERY) readMarks(sql, w, key, skip);
  return rows;
}

/** Reads the walk's marks up to position `skip` in the background, after the last of `from` when given (and still of this state). */
function readMarks(sql: Sql, w: Walk, key: string, skip: number, from?: { state: string; value: string[] }): void {
  if (building.has(key) || Date.now() - staleAt < REBUILD_AFTER_STALE_MS) return;
  const count = Math.min(Math.floor(skip / MARK_EVERY), MARKS_MAX) - (from?.value.length ?? 0);
  if (count <= 0) return;
  const start = from?.value.at(-1);
  const first = `SELECT ${selectKeys(w)} FROM ${w.from} ${where(start ? [...w.conds, afterMark(w)] : w.conds)} ORDER BY ${order(w)} LIMIT 1 OFFSET ${MARK_EVERY - 1}`;
  const step = `SELECT ${selectKeys(w)} FROM ${w.from} ${where([...w.conds, after(w, "m")])} ORDER BY ${order(w)} LIMIT 1 OFFSET ${MARK_EVERY - 1}`;
  const cols = w.keys.map((_, i) => `"k${i}"`).join(", ");
  const last = `"k${w.keys.length - 1}"`;
  const read = (async () => {
    // The count, then whether a write it counted may not be committed yet, then the marks (see the top).
    const writes = (await sql.get<{ writes: string }>(`SELECT (${WRITES}) AS "writes"`))!.writes;
    if ((await sql.get<{ writing: boolean }>(WRITING))!.writing) return;
    const rows = await sql.all<{ id: string; writes: string }>(
      `WITH RECURSIVE marks("n", ${cols}) AS (
         SELECT 1, f.* FROM (${first}) f
         UNION ALL
         SELECT m."n" + 1, x.* FROM marks m, LATERAL (${step}) x WHERE m."n" < @__count
       )
       SELECT m.${last} AS "id", (${WRITES}) AS "writes" FROM marks m ORDER BY m."n"`,
      { ...w.params, __count: count, ...(start ? { __mark: start } : {}) },
    );
    // Written to meanwhile (the count moved, or a held set's count is not this one): not kept.
    if (!rows.length || rows[0]!.writes !== writes || (from && from.state !== writes)) return;
    sets.set(key, writes, [...(from?.value ?? []), ...rows.map((r) => r.id)]);
    heldCounts.read += rows.length;
  })()
    .catch(() => {})
    .finally(() => building.delete(key));
  building.set(key, read);
}
