import { BadInputError } from "@/lib/errors";
import type { Dialect } from "./dialect";
import { type HeldTotal, heldTotal, holdTotal, readDeepPage, SNAPSHOT_COLUMN, walkOrder } from "./list-held";
import type { Sql } from "./sql";

/** Filters shared by the episode list, statistics and export. Every field is optional. */
export interface EpisodeFilters {
  environment?: string | string[];
  dataset?: string | string[];
  model?: string | string[];
  policy?: string | string[];
  playerKind?: string | string[];
  annotator?: string | string[];
  status?: string | string[];
  hardness?: string | string[];
  taskId?: string | string[];
  runId?: string;
  studyId?: string;
  parentEpisodeId?: string;
  success?: boolean;
  /** An accepted tag the episode must carry. */
  tag?: string;
  /** An import flag the episode must carry (lib/trajectories/flags.ts). */
  flag?: string;
  rewardMin?: number;
  rewardMax?: number;
  turnsMin?: number;
  turnsMax?: number;
  turnLimit?: number;
  /** At least this many invalid actions (the viewer's filter). */
  invalidMin?: number;
  startedAfter?: Date;
  startedBefore?: Date;
  /** Full-text search over the query, the actions and the observations (FTS5). */
  search?: string;
}

const LIST_COLUMNS = ["environment", "dataset", "model", "policy", "playerKind", "annotator", "status", "hardness", "taskId"] as const;

/**
 * Turns free text into the engine's full-text query (FTS5 on SQLite, a tsquery on PostgreSQL):
 * every word (letters and digits, as SQLite's unicode61 tokenizer splits them) must occur in the
 * episode's text (its query, actions and observations, one document per episode); a trailing `*`
 * makes the last word a prefix. Punctuation is ignored, so user input can never be query syntax.
 * Neither index keeps positions, so there are no phrases. Null when no word is left.
 */
function toSearchQuery(text: string, dialect: Dialect): string | null {
  return dialect.searchQuery([text]);
}

/** How many episodes match a search query (FTS5's hits on SQLite, the search's bitmap on PostgreSQL: no table rows). */
async function countSearchHits(sql: Sql, query: string): Promise<number> {
  return Number((await sql.get<{ n: number }>(sql.dialect.countHits("?"), [query]))!.n);
}

/** The most words a prefix becomes (sqlitePrefixWords); past them it stays a prefix. */
const PREFIX_WORDS = 64;

/**
 * SQLite: an FTS5 query whose last word is a prefix (of ASCII letters and digits, lower-cased as
 * FTS5's vocabulary holds its words) made the words of the index that start with it, ORed,
 * when there are at most PREFIX_WORDS of them; else, or when none, it is left as it is. FTS5 reads
 * a word's hits as the rowids it is asked for, a prefix's every hit merged at each statement
 * (SQLITE_PREFIX in dialect.ts): 'synt*' + env=sql took 90-124 ms, 'syntax' + env=sql 24-42.
 */
async function sqlitePrefixWords(sql: Sql, fts: string): Promise<string> {
  const m = /"([A-Za-z0-9]+)"\*$/.exec(fts);
  if (!m) return fts;
  const prefix = m[1]!.toLowerCase();
  const words = await sql.all<{ term: string }>(
    `SELECT "term" FROM "EpisodeText_vocab" WHERE "term" >= ? AND "term" < ? ORDER BY "term" LIMIT ${PREFIX_WORDS + 1}`,
    [prefix, `${prefix}\u{10FFFF}`],
  );
  if (!words.length || words.length > PREFIX_WORDS) return fts;
  const rest = fts.slice(0, m.index).trim();
  const any = `(${words.map((w) => `"${w.term.replaceAll('"', '""')}"`).join(" OR ")})`;
  return rest ? `${rest} AND ${any}` : any;
}

/**
 * Up to this many full-text hits, a list query is best driven from the hits (a join on the
 * integer key); above it, from the sort order, testing each episode's key against the hit set
 * (written `+e."searchKey" IN (...)` so SQLite does not drive from the hits anyway).
 */
export const SEARCH_DRIVE_LIMIT = 5000;

/** Builds a parameterised WHERE clause over `Episode` aliased `e`. */
export function buildEpisodeWhere(f: EpisodeFilters, dialect: Dialect): { sql: string; params: Record<string, unknown> } {
  const { parts, params } = buildEpisodeConditions(f, dialect);
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

/** The filters as conditions over `Episode` aliased `e` (to be joined with AND), and their parameters. */
function buildEpisodeConditions(f: EpisodeFilters, dialect: Dialect): { parts: string[]; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  let n = 0;
  const bind = (v: unknown) => {
    const k = `p${n++}`;
    params[k] = v;
    return `@${k}`;
  };
  for (const col of LIST_COLUMNS) {
    const v = f[col];
    if (v === undefined) continue;
    const vals = Array.isArray(v) ? v : [v];
    if (!vals.length) continue;
    parts.push(vals.length === 1 ? `e."${col}" = ${bind(vals[0])}` : `e."${col}" IN (${vals.map(bind).join(", ")})`);
  }
  if (f.runId) parts.push(`e."runId" = ${bind(f.runId)}`);
  if (f.studyId) parts.push(`e."studyId" = ${bind(f.studyId)}`);
  if (f.parentEpisodeId) parts.push(`e."parentEpisodeId" = ${bind(f.parentEpisodeId)}`);
  if (f.success !== undefined) parts.push(`e."success" = ${bind(f.success ? 1 : 0)}`);
  // A word of the space-separated list. `> ''` is a range of the column's index (most episodes have
  // no tags or flags, and sort first in it), so the LIKE is tested on the tagged episodes only,
  // read from the index, instead of on every episode.
  const word = (col: string, w: string) => `e."${col}" > '' AND (' ' || e."${col}" || ' ') LIKE ${bind(`% ${w.replace(/[%_\s]/g, "")} %`)}`;
  if (f.tag) parts.push(word("tags", f.tag));
  if (f.flag) parts.push(word("flags", f.flag));
  if (f.rewardMin !== undefined) parts.push(`e."reward" >= ${bind(f.rewardMin)}`);
  if (f.rewardMax !== undefined) parts.push(`e."reward" <= ${bind(f.rewardMax)}`);
  if (f.turnsMin !== undefined) parts.push(`e."turnCount" >= ${bind(f.turnsMin)}`);
  if (f.turnsMax !== undefined) parts.push(`e."turnCount" <= ${bind(f.turnsMax)}`);
  if (f.turnLimit !== undefined) parts.push(`e."turnLimit" = ${bind(f.turnLimit)}`);
  if (f.invalidMin !== undefined) parts.push(`e."invalidCount" >= ${bind(f.invalidMin)}`);
  if (f.startedAfter) parts.push(`e."startedAt" >= ${bind(dialect.time(f.startedAfter.getTime()))}`);
  if (f.startedBefore) parts.push(`e."startedAt" < ${bind(dialect.time(f.startedBefore.getTime()))}`);
  if (f.search !== undefined) {
    const q = toSearchQuery(f.search, dialect);
    if (q) parts.push(`e."searchKey" IN (${dialect.searchHits(bind(q))})`);
  }
  for (const [k, v] of Object.entries(f)) {
    if (typeof v === "number" && !Number.isFinite(v)) throw new BadInputError("must be a finite number", `filter ${k}`);
  }
  return { parts, params };
}

/**
 * The filters as conditions over `Episode e` with the search apart (as the list's page planner,
 * readEpisodePage, and the aggregates drive a search from its hits): the conditions, their
 * parameters, and the engine's full-text query or null.
 */
export function listConditions(f: EpisodeFilters, dialect: Dialect): { parts: string[]; params: Record<string, unknown>; fts: string | null } {
  const { search, ...rest } = f;
  const { parts, params } = buildEpisodeConditions(rest, dialect);
  return { parts, params, fts: search === undefined ? null : toSearchQuery(search, dialect) };
}

/** The filters the statistics index (Episode_stats_idx) holds the columns of. */
const STATS_INDEX_FILTERS = new Set([
  "environment",
  "dataset",
  "playerKind",
  "model",
  "policy",
  "status",
  "success",
  "rewardMin",
  "rewardMax",
  "turnsMin",
  "turnsMax",
  "turnLimit",
  "invalidMin",
  "search",
]);
const RANGE_FILTERS = ["rewardMin", "rewardMax", "turnsMin", "turnsMax", "invalidMin"];

/** The first column of each index statsIndexCovers names (an ORDER BY that PostgreSQL reads from the index). */
const COUNT_INDEX_LEADS: Record<string, string> = { Episode_stats_idx: `e."environment"` };

/**
 * The index to count a filtered list from, when the filters use only columns of the statistics
 * index and include a range (reward, turns, invalid actions). SQLite then drives the count from
 * the range's own index and reads a table row per episode in range (35 ms at 100,000 episodes for
 * reward 0.2-0.8); a scan of the covering index reads no table rows (11 ms). Equality filters
 * alone are left to SQLite: their indexes find few rows.
 */
export function statsIndexCovers(f: EpisodeFilters): string | undefined {
  const set = Object.entries(f).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (!set.some(([k]) => RANGE_FILTERS.includes(k))) return undefined;
  return set.every(([k]) => STATS_INDEX_FILTERS.has(k)) ? "Episode_stats_idx" : undefined;
}

/** The filters a column's planner statistics describe alone: an equality (or a list of values) on one column. */
const PLANNED_FILTERS = new Set<string>([...LIST_COLUMNS, "success"]);

/**
 * Whether the filters test one column's value(s) and nothing else, so the planner's estimate of
 * their matches is the column's own statistics (its most common values and their shares), not a
 * product of several columns' shares taken as independent (see PLANNED_TOTAL_FROM).
 */
export function oneColumnFilter(f: EpisodeFilters): boolean {
  const set = Object.entries(f).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  return set.length === 1 && PLANNED_FILTERS.has(set[0]![0]);
}

/**
 * The one table of the episode lists' sorts (the store's list, the viewer's list and its URL):
 * each key's SQL expression over `e`, the index on (column, id) when there is one (see the
 * list_stats_indexes migration), whether it can be NULL (schema.prisma), and its name in the
 * viewer's URL (`?sort=`) when the viewer offers it.
 */
export const EPISODE_SORTS = {
  startedAt: { expr: `e."startedAt"`, index: "Episode_startedAt_id_idx", nullable: false, url: "date" },
  endedAt: { expr: `e."endedAt"`, nullable: true },
  reward: { expr: `e."reward"`, index: "Episode_reward_id_idx", nullable: true, url: "reward" },
  success: { expr: `e."success"`, index: "Episode_success_id_idx", nullable: false, url: "solved" },
  turnCount: { expr: `e."turnCount"`, index: "Episode_turnCount_id_idx", nullable: false, url: "turns" },
  invalidCount: { expr: `e."invalidCount"`, index: "Episode_invalidCount_id_idx", nullable: false, url: "invalid" },
  durationMs: { expr: `e."durationMs"`, index: "Episode_durationMs_id_idx", nullable: true, url: "duration" },
  taskId: { expr: `e."taskId"`, index: "Episode_taskId_id_idx", nullable: false, url: "task" },
  taskIndex: { expr: `e."taskIndex"`, nullable: true },
  environment: { expr: `e."environment"`, index: "Episode_environment_id_idx", nullable: false, url: "env" },
  dataset: { expr: `e."dataset"`, index: "Episode_dataset_id_idx", nullable: false, url: "dataset" },
  model: { expr: `e."model"`, index: "Episode_model_id_idx", nullable: true, url: "model" },
  policy: { expr: `e."policy"`, index: "Episode_policy_id_idx", nullable: true, url: "policy" },
  annotator: { expr: `e."annotator"`, nullable: true },
  /** Who played: the annotator, else the model (the viewer's player column). */
  player: { expr: `COALESCE(e."annotator", e."model")`, index: "Episode_player_id_idx", nullable: true, url: "player" },
  status: { expr: `e."status"`, index: "Episode_status_id_idx", nullable: false, url: "status" },
  hardness: { expr: `e."hardness"`, nullable: true },
} as const satisfies Record<string, EpisodeSortSpec & { url?: string }>;

/** A key of EPISODE_SORTS. */
export type EpisodeSortKey = keyof typeof EPISODE_SORTS;

/** Whether `key` names a sort (for input checks). */
export function isEpisodeSortKey(key: string): key is EpisodeSortKey {
  return Object.hasOwn(EPISODE_SORTS, key);
}

type Sorts = typeof EPISODE_SORTS;
/** The viewer URL's sort names → sort keys (the EPISODE_SORTS entries with a `url`). */
export type ListSorts = { [K in keyof Sorts as Sorts[K] extends { url: string } ? Sorts[K]["url"] : never]: K };
export const LIST_SORTS = Object.fromEntries(Object.entries(EPISODE_SORTS).flatMap(([key, spec]) => ("url" in spec ? [[spec.url, key]] : []))) as ListSorts;

/** A sort the list can ask for: an SQL expression over `e`, and what the planner needs to know of it. */
export interface EpisodeSortSpec {
  /** The expression, e.g. `e."reward"`. */
  expr: string;
  /** An index on (the expression, id, searchKey) whose walk gives the order without sorting (and a search's test, the key, without the table row). */
  index?: string;
  /** Whether the expression can be NULL (NULLs always sort last). */
  nullable: boolean;
}

/** One page of the episode list, planned: the matching total and the page's rows. */
export interface EpisodePagePlan {
  /** Matching episodes: exact, or estimated when `totalExact` is false. */
  total: number;
  /** False when `total` is an estimate (more than COUNT_EXACT_UP_TO matched and no exact count was asked). */
  totalExact: boolean;
  rows: Array<Record<string, unknown>>;
}

/**
 * Up to this many matching episodes the list counts them exactly; past it (unless an exact count
 * is asked for) it stops counting and estimates the total from a sample, so a page's cost does not
 * grow with the store. The count stops at COUNT_EXACT_UP_TO + 1 rows read through the filter.
 */
export const COUNT_EXACT_UP_TO = 10_000;
/**
 * How many episodes a walk of the sort's index may visit per match it would otherwise read and
 * sort: the walk reads rows in the index's order (mostly the table's) and sorts nothing. At a
 * million episodes, tag=query-error page 20 (26k matches, a walk of 38k) took 11 ms walking and
 * 120 ms read through the tag's index and sorted.
 */
const WALK_OVER_SORT = 4;
/** The estimate's sample: this many windows of consecutive search keys, spread over the key range. */
const SAMPLE_WINDOWS = 16;
/** Keys per window. */
const SAMPLE_WINDOW_KEYS = 500;

/**
 * A planner's estimate (dialect.estimatesRows) at least this large is taken as the total without
 * counting, where the planner's statistics describe the matches well: every episode (the table's
 * size) and one searched word (its share of the documents, for the words common enough for that to
 * matter), and one column's value(s) (oneColumnFilter: the column's most common values and their
 * shares). Counting those first 10,001 matches was most of such a page on PostgreSQL (a common
 * word's: a scan of some 75,000 documents, 30 ms; every episode's: 1.5 ms against a 0.5 ms page;
 * status=error's: 10,001 index entries and the sample's 8,000 rows, 7 ms against SQLite's 3 ms page).
 * Five times the exact limit: a stale statistic (the table or the word shrank since ANALYZE) must
 * be wrong fivefold before an exact total is shown as an estimate ("count exactly" counts it).
 * Filters on several columns are always counted: the planner multiplies their shares as if
 * independent (sql and mbpp would be a ninth of the store, where none match).
 */
const PLANNED_TOTAL_FROM = 5 * COUNT_EXACT_UP_TO;

/** The planner's row estimate for a SELECT (dialect.estimatesRows). */
async function plannerRows(sql: Sql, select: string, params: Record<string, unknown>): Promise<number> {
  const r = await sql.get<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>(`EXPLAIN (FORMAT JSON) ${select}`, params);
  return Number(r?.["QUERY PLAN"]?.[0]?.Plan?.["Plan Rows"] ?? 0);
}

/** The planner's row estimate for a SELECT (dialect.estimatesRows), rounded as an estimate; null where it is too small to stand for a total (PLANNED_TOTAL_FROM). */
async function plannedTotal(sql: Sql, select: string, params: Record<string, unknown>): Promise<number | null> {
  if (!sql.dialect.estimatesRows) return null;
  return asPlannedTotal(await plannerRows(sql, select, params));
}

/** A planner's row estimate as a total: rounded, or null where too small to stand for one (PLANNED_TOTAL_FROM). */
function asPlannedTotal(rows: number): number | null {
  return rows >= PLANNED_TOTAL_FROM ? roundEstimate(rows) : null;
}

/**
 * The planner's estimate of every episode, read without planning a statement (dialect.estimatesRows):
 * the statistics' rows per page times the table's pages now, as the planner scales them; null
 * before the table's first VACUUM or ANALYZE, or where too small to stand for a total
 * (PLANNED_TOTAL_FROM). EXPLAIN of `SELECT 1 FROM "Episode"` weighed every index of the table
 * (0.7-1.5 ms on a page of 1-3 ms); this is one row of pg_class, and a statement kept planned.
 */
async function plannedEpisodes(sql: Sql): Promise<number | null> {
  if (!sql.dialect.estimatesRows) return null;
  const r = await sql.get<{ n: number | null }>(
    `SELECT CASE WHEN c."reltuples" >= 0 AND c."relpages" > 0 THEN c."reltuples" / c."relpages" * (pg_relation_size(c."oid") / current_setting('block_size')::int) END AS "n"
     FROM pg_class c WHERE c."oid" = to_regclass('"Episode"')`,
  );
  return asPlannedTotal(r?.n === null || r?.n === undefined ? 0 : Number(r.n));
}

/** Rounds an estimate to two significant digits (what a sample can say). */
function roundEstimate(n: number): number {
  if (n < 100) return Math.round(n);
  const p = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / p) * p;
}

/**
 * The count estimate's sample as one SELECT of column "m": the matches among the episodes of
 * SAMPLE_WINDOWS windows of consecutive search keys, window i from `lo` + i × `step`. One range read of the search-key index per window: the
 * filters are tested on the window's rows (in the CASE), so neither engine drives the read from a
 * filter's index instead; ORed ranges made SQLite scan the table. A search is tested on the
 * window's keys only (searchInKeys): the whole hit set once per window made a common word's
 * estimate cost 16 searches.
 */
function sampleSql(dialect: Dialect, conds: string[], ftsParam: string | null, lo: number, step: number): string {
  const windows = Array.from({ length: SAMPLE_WINDOWS }, (_, i) =>
    windowSql(dialect, conds, ftsParam, String(lo + i * step), String(lo + i * step + SAMPLE_WINDOW_KEYS - 1)),
  );
  return `SELECT SUM(w."m") AS "m" FROM (${windows.join(" UNION ALL ")}) w`;
}

/** The matches among the episodes whose search keys are in [a, b] (SQL expressions), as column "m". */
function windowSql(dialect: Dialect, conds: string[], ftsParam: string | null, a: string, b: string): string {
  // The search alone: its hits in the window, from the search table (no episode row to test).
  if (ftsParam && !conds.length) return dialect.searchHitsInKeys(ftsParam, a, b);
  const all = [...conds, ...(ftsParam ? [dialect.searchInKeys(ftsParam, a, b)] : [])];
  return `SELECT SUM(CASE WHEN ${all.length ? all.join(" AND ") : "1 = 1"} THEN 1 ELSE 0 END) AS "m" FROM "Episode" e WHERE e."searchKey" BETWEEN ${a} AND ${b}`;
}

/** The sample's matches (`m`, of SAMPLE_WINDOWS × SAMPLE_WINDOW_KEYS keys) scaled to the key range's `span`; at least COUNT_EXACT_UP_TO + 1, which the capped count proved. */
function scaleSample(m: number, span: number): number {
  return Math.max(COUNT_EXACT_UP_TO + 1, roundEstimate((m / (SAMPLE_WINDOWS * SAMPLE_WINDOW_KEYS)) * span));
}

/**
 * The matching total past COUNT_EXACT_UP_TO, estimated from the sample (sampleSql), scaled to the
 * whole key range. Search keys follow insertion, so the windows sample every period of the store.
 * Null when the store is no larger than the sample (then the caller counts).
 */
async function estimateMatches(sql: Sql, conds: string[], params: Record<string, unknown>, ftsParam: string | null): Promise<number | null> {
  // Two subqueries: MIN and MAX together in one SELECT make SQLite scan the index instead of reading its two ends.
  const range = await sql.get<{ lo: number | null; hi: number | null }>(
    `SELECT (SELECT MIN("searchKey") FROM "Episode") AS lo, (SELECT MAX("searchKey") FROM "Episode") AS hi`,
  );
  const lo = Number(range?.lo ?? 0);
  const span = Number(range?.hi ?? 0) - lo + 1;
  // A sample as large as the store: counting is as cheap, and exact.
  if (span <= SAMPLE_WINDOWS * SAMPLE_WINDOW_KEYS) return null;
  const r = await sql.get<{ m: number | null }>(sampleSql(sql.dialect, conds, ftsParam, lo, Math.floor(span / SAMPLE_WINDOWS)), params);
  return scaleSample(Number(r?.m ?? 0), span);
}

/**
 * Matches counted up to COUNT_EXACT_UP_TO + 1 (`capped`: a SELECT of column "n" that stops
 * there) and, past that, estimated (estimateMatches: null when the store is no larger than the
 * sample); on PostgreSQL also the largest search key, read on the way. On SQLite, statements in turn. On PostgreSQL, where each statement is a round trip
 * (a simple sort's page was four of them, 5 ms against SQLite's 2), one statement: the sample is
 * a subquery of a CASE, which PostgreSQL runs only when its branch is taken, its windows placed
 * from the key range read in the same statement (once: without OFFSET 0 the planner pulls the
 * range's subquery up and reads MIN and MAX again for every bound of every window).
 */
async function countOrEstimate(
  sql: Sql,
  capped: string,
  params: Record<string, unknown>,
  conds: string[],
  ftsParam: string | null,
  { beside = false }: { beside?: boolean } = {},
): Promise<{ n: number; estimate: number | null; episodes?: number }> {
  if (beside) return countBesideSample(sql, capped, params, conds, ftsParam);
  if (!sql.dialect.foldsStatements) {
    const n = Number((await sql.get<{ n: number }>(capped, params))!.n);
    return { n, estimate: n > COUNT_EXACT_UP_TO ? await estimateMatches(sql, conds, params, ftsParam) : null };
  }
  const span = `(r."hi" - r."lo" + 1)`;
  // Window i of the sample starts here (the windows are the rows of a series: 16 subqueries in a UNION took the planner longer than the reads).
  const a = `(r."lo" + w."i" * (${span} / ${SAMPLE_WINDOWS}))`;
  const r = await sql.get<{ n: number; m: number | null; span: number | null; hi: number | null }>(
    `SELECT c."n" AS "n", ${span} AS "span", r."hi" AS "hi",
       CASE WHEN c."n" > ${COUNT_EXACT_UP_TO} AND ${span} > ${SAMPLE_WINDOWS * SAMPLE_WINDOW_KEYS}
         THEN (SELECT SUM(x."m") FROM generate_series(0, ${SAMPLE_WINDOWS - 1}) AS w("i"), LATERAL (${windowSql(sql.dialect, conds, ftsParam, a, `${a} + ${SAMPLE_WINDOW_KEYS - 1}`)}) x) END AS "m"
     FROM (${capped}) c, (SELECT (SELECT MIN("searchKey") FROM "Episode") AS "lo", (SELECT MAX("searchKey") FROM "Episode") AS "hi" OFFSET 0) r`,
    params,
  );
  const n = Number(r!.n);
  return { n, estimate: n > COUNT_EXACT_UP_TO && r!.m !== null ? scaleSample(Number(r!.m), Number(r!.span)) : null, episodes: Number(r!.hi ?? 0) };
}

/**
 * The PostgreSQL sample as a statement of its own (see countOrEstimate): column "m", the matches
 * in the windows, and "span", the key range the windows were placed over.
 */
function pgSampleSql(dialect: Dialect, conds: string[], ftsParam: string | null): string {
  const span = `(r."hi" - r."lo" + 1)`;
  const a = `(r."lo" + w."i" * (${span} / ${SAMPLE_WINDOWS}))`;
  return `SELECT SUM(x."m") AS "m", MAX(${span}) AS "span"
     FROM (SELECT (SELECT MIN("searchKey") FROM "Episode") AS "lo", (SELECT MAX("searchKey") FROM "Episode") AS "hi" OFFSET 0) r,
       generate_series(0, ${SAMPLE_WINDOWS - 1}) AS w("i"), LATERAL (${windowSql(dialect, conds, ftsParam, a, `${a} + ${SAMPLE_WINDOW_KEYS - 1}`)}) x`;
}

/**
 * countOrEstimate with the capped count and the sample read at once, on two of PostgreSQL's pool
 * connections, for filters the planner expects to match past COUNT_EXACT_UP_TO: in one statement
 * the sample waits for the count (env=sql and solved=no: 10,001 index entries, 2.8 ms, then the
 * sample's 8,000 rows, 4 ms). When the count stays under the limit the sample is not waited for.
 */
async function countBesideSample(
  sql: Sql,
  capped: string,
  params: Record<string, unknown>,
  conds: string[],
  ftsParam: string | null,
): Promise<{ n: number; estimate: number | null }> {
  const sample = sql.get<{ m: number | null; span: number | null }>(pgSampleSql(sql.dialect, conds, ftsParam), params);
  // Not waited for below the limit: its failure then must not go unhandled.
  sample.catch(() => {});
  const n = Number((await sql.get<{ n: number }>(capped, params))!.n);
  if (n <= COUNT_EXACT_UP_TO) return { n, estimate: null };
  const r = await sample;
  const span = Number(r?.span ?? 0);
  return { n, estimate: span > SAMPLE_WINDOWS * SAMPLE_WINDOW_KEYS ? scaleSample(Number(r?.m ?? 0), span) : null };
}

/**
 * Chooses how to read one page of `Episode e` under WHERE conditions (`parts`, over `e`, without
 * the search), an optional FTS5 query and a sort, and reads it. Shared by the store's list and the
 * viewer's list. The choices, each measured at 100,000 episodes:
 * - Search with few hits (≤ SEARCH_DRIVE_LIMIT): drive from the hits (a join on the integer key)
 *   and sort them. Many hits: test each episode's key against the hit set instead.
 * - The total comes from the hits' count when the search is the only condition (counted up to
 *   COUNT_EXACT_UP_TO, estimated past it, as any filter's).
 * - With a sort index, walking it visits about (page × pageSize) × episodes / total rows; reading
 *   every match through the filter's index and sorting visits total rows. SQLite cannot tell
 *   which is cheaper (it does not know how many match); the count just taken does, and INDEXED BY
 *   makes it walk (PostgreSQL, which misjudges a tag's or a search's matches, is made to walk by
 *   walkConditions). A walk over a common word's hits tests each walked episode's search alone
 *   while it is short, else against the whole hit set (walkSearch). A nullable key is read in two parts, keyed then
 *   unkeyed (see below).
 * - On PostgreSQL, a filtered first page that the planner expects within a short walk is read
 *   beside the count (boundedWalk), and kept when full.
 * `correlated` says the filters and the sort key are not independent (success and reward), so
 * the walk estimate does not hold. `countIndex` names an index to count from (one that covers every
 * condition: no table rows read).
 */
export async function readEpisodePage(
  sql: Sql,
  {
    parts,
    params,
    fts: searched,
    sort,
    dir,
    page,
    pageSize,
    columns,
    correlated = false,
    countIndex,
    exactCount = false,
    oneColumn = false,
    heldStore,
  }: {
    parts: string[];
    params: Record<string, unknown>;
    fts: string | null;
    sort: EpisodeSortSpec;
    dir: "ASC" | "DESC";
    page: number;
    pageSize: number;
    /** The SELECT list over `e`. */
    columns: string;
    correlated?: boolean;
    /** An index that covers every condition, for counting without table rows (see statsIndexCovers). */
    countIndex?: string;
    /** Count every match, however many (else past COUNT_EXACT_UP_TO the total is estimated). */
    exactCount?: boolean;
    /** The conditions test one column's value(s) alone (oneColumnFilter): the planner's estimate may stand for a large total. */
    oneColumn?: boolean;
    /**
     * PostgreSQL: the store's URL, to hold marks along deep walks and filters' totals for
     * (lib/db/list-held.ts). Marks are read in the background on `sql` after the page: a pool's,
     * not a transaction's.
     */
    heldStore?: string;
  },
): Promise<EpisodePagePlan> {
  const d = sql.dialect;
  const fts = searched && d.name === "sqlite" ? await sqlitePrefixWords(sql, searched) : searched;
  const p: Record<string, unknown> = { ...params };
  const conds = [...parts];
  let from = `"Episode" e`;
  let total: number | undefined;
  let totalExact = true;
  let fewHits = false;
  let hits = 0;
  /** The store's largest search key (how many episodes a walk may visit), when a statement read it on the way. */
  let episodes: number | undefined;
  /** The database snapshot the filter's counts are held for (lib/db/list-held.ts), when they were not held. */
  let holdFor: string | undefined;
  /** The store's size and snapshot (PostgreSQL), and the filter's counts held for that snapshot. */
  const sizeAndHeld = async (size: { n: number; snap?: string }): Promise<HeldTotal | undefined> => {
    episodes = Number(size.n);
    if (!heldStore || !size.snap) return undefined;
    const held = heldTotal(heldStore, parts, p, size.snap);
    if (held) {
      total = held.total;
      totalExact = held.exact;
      hits = held.hits ?? 0;
    } else holdFor = size.snap;
    return held;
  };
  const sizeSql = `SELECT COALESCE(MAX("searchKey"), 0) AS n${heldStore ? `, ${SNAPSHOT_COLUMN}` : ""} FROM "Episode"`;
  if (fts) {
    p.fts = fts;
    // A search's counts (its hits, up to the limits, and the total) held for the snapshot read first: one short statement, where a common word's count is 15-20 ms.
    const held = heldStore && !exactCount && d.estimatesRows ? await sizeAndHeld((await sql.get<{ n: number; snap?: string }>(sizeSql))!) : undefined;
    // One word alone (a tsquery joins words with "&"), common: the planner's share of the documents holding it (see PLANNED_TOTAL_FROM).
    const planned = !held && !exactCount && d.estimatesRows && !conds.length && !fts.includes("&") ? await plannedTotal(sql, d.searchHits("@fts"), p) : null;
    if (held) {
      // Its total and hits as counted under this snapshot (sizeAndHeld).
    } else if (exactCount) {
      hits = await countSearchHits(sql, fts);
      if (!conds.length) total = hits;
    } else if (planned !== null) {
      hits = total = planned;
      totalExact = false;
    } else if (!conds.length && d.countsHitsWhole(fts)) {
      // Alone, its hits are its total: counted whole where that costs what a capped count does.
      hits = total = await countSearchHits(sql, fts);
    } else {
      // Counted up to the larger of the two limits that decide here (how to drive the page, and
      // whether the total is exact), and past them the matches (the filters' and the search's)
      // estimated from the sample: with other filters, counting up to COUNT_EXACT_UP_TO would
      // read the whole hit set of a common word; well past the limit, the estimate is the total.
      const cap = Math.max(COUNT_EXACT_UP_TO, SEARCH_DRIVE_LIMIT) + 1;
      const c = await countOrEstimate(sql, d.countHitsUpTo("@fts", cap), p, parts, "@fts");
      hits = c.n;
      episodes = c.episodes;
      if (!conds.length) {
        if (hits <= COUNT_EXACT_UP_TO) total = hits;
        else if (c.estimate === null) total = await countSearchHits(sql, fts);
        else {
          total = c.estimate;
          totalExact = false;
        }
      } else if (c.estimate !== null && c.estimate > 2 * COUNT_EXACT_UP_TO) {
        total = c.estimate;
        totalExact = false;
      }
    }
    if (holdFor && total !== undefined) holdTotal(heldStore!, parts, p, holdFor, { total, exact: totalExact, hits });
    if (hits === 0) return { total: 0, totalExact: true, rows: [] };
    if (hits <= SEARCH_DRIVE_LIMIT) {
      fewHits = true;
      from = `(${d.searchHits("@fts")}) h ${d.drivingJoin} "Episode" e ON e."searchKey" = h."k"`;
    } else {
      // `+` keeps SQLite from driving the query from the hits anyway.
      conds.push(`+e."searchKey" IN (${d.searchHits("@fts")})`);
    }
  }
  const where = conds.length ? `WHERE ${conds.join(" AND ")}` : "";
  /** The planner's estimate of the filters' matches (PostgreSQL, filters without a search), read before counting. */
  let planned: number | undefined;
  if (conds.length && !fts && !exactCount && d.estimatesRows) {
    // The store's size (for the walk estimate) is read beside it, on another of the pool's
    // connections, with the snapshot that says whether the filter's total held is still its total.
    const [rows, size] = await Promise.all([plannerRows(sql, `SELECT 1 FROM "Episode" e ${where}`, p), sql.get<{ n: number; snap?: string }>(sizeSql)]);
    planned = rows;
    await sizeAndHeld(size!);
  }
  const countTotal = async (): Promise<number> => {
    const countFrom = countIndex && !fewHits ? `"Episode" e${d.indexedBy(countIndex)}` : from;
    const exact = async () => Number((await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${countFrom} ${where}`, p))!.n);
    /** Whether to read the sample beside the count (countBesideSample). */
    let beside = false;
    if (exactCount || fewHits) return exact();
    if (!conds.length) {
      // Every episode: the table's size as the planner knows it, when large (see PLANNED_TOTAL_FROM).
      const planned = await plannedEpisodes(sql);
      if (planned !== null) {
        totalExact = false;
        return planned;
      }
    } else if (planned !== undefined) {
      // One column's value(s) take the planner's estimate as the total when large (its statistics'
      // share); for others it only says whether the count will pass the limit.
      if (oneColumn && planned >= PLANNED_TOTAL_FROM) {
        totalExact = false;
        return roundEstimate(planned);
      }
      // A LIKE's matches (a tag, a flag) are the planner's guess, not a statistic: as many as may pass the limit.
      beside = planned > COUNT_EXACT_UP_TO || conds.some((c) => c.includes(" LIKE "));
    }
    // PostgreSQL cannot be told the covering index (indexedBy); ordered by its first column, the
    // capped count reads it (index-only) instead of the table (reward 0.2-0.8, turns>=5,
    // invalid>=2: 57,000 table rows, 21 ms; the index's entries, 13 ms).
    const lead = countIndex && !fewHits && d.foldsStatements ? COUNT_INDEX_LEADS[countIndex] : undefined;
    // Counting stops past COUNT_EXACT_UP_TO: a filter matching most of a million episodes costs what one matching ten thousand does.
    const c = await countOrEstimate(
      sql,
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${countFrom} ${where}${lead ? ` ORDER BY ${lead}` : ""} LIMIT ${COUNT_EXACT_UP_TO + 1}) c`,
      p,
      parts,
      fts ? "@fts" : null,
      { beside },
    );
    episodes ??= c.episodes;
    if (c.n <= COUNT_EXACT_UP_TO) return c.n;
    if (c.estimate === null) return exact();
    totalExact = false;
    return c.estimate;
  };
  const offset = (page - 1) * pageSize;
  const pageOf = (pageFrom: string, pageConds: string[]) =>
    readPageRows(sql, { from: pageFrom, conds: pageConds, countFrom: from, countConds: conds, params: p, sort, dir, offset, pageSize, columns, heldStore });
  if (!conds.length) {
    // No filter: the page does not depend on the count, so on PostgreSQL the two are read at once (two of the pool's connections).
    const [n, rows] = await Promise.all([total ?? countTotal(), pageOf(from, conds)]);
    return { total: n, totalExact, rows: totalExact && n <= offset ? [] : rows };
  }
  // A first page the planner expects within a short walk is read beside the count (boundedWalk):
  // a full page is the page whatever the count says.
  const early =
    planned !== undefined && episodes !== undefined && page === 1 && sort.index && !correlated
      ? boundedWalk(sql, { conds, params: p, sort, dir, pageSize, columns, visits: (WALK_OVER_SORT * pageSize * episodes) / Math.max(planned, 1) })
      : null;
  if (total === undefined) {
    total = await countTotal();
    if (holdFor) holdTotal(heldStore!, parts, p, holdFor, { total, exact: totalExact, hits });
  }
  if (early) {
    const rows = await early;
    if (rows?.length === pageSize) return { total, totalExact, rows };
  }
  if (totalExact && total <= offset) return { total, totalExact, rows: [] };
  let pageFrom = from;
  let pageConds = conds;
  if (!fewHits && sort.index && !correlated) {
    episodes ??= Number((await sql.get<{ n: number }>(`SELECT COALESCE(MAX("searchKey"), 0) AS n FROM "Episode"`))!.n);
    const visits = (page * pageSize * episodes) / total;
    if (visits < (fts && !parts.length ? d.searchWalkOverSort : WALK_OVER_SORT) * total) {
      pageFrom = `"Episode" e${d.indexedBy(sort.index)}`;
      // A short walk over many hits tests each episode's search alone, a long one against the hit set (walkSearch).
      // (The hits were counted only so far; every match is a hit, so the total bounds them too.)
      pageConds = d.walkConditions(fts ? [...parts, d.walkSearch("@fts", { query: fts, visits, hits: Math.max(hits, total), episodes })] : conds);
    }
  }
  return { total, totalExact, rows: await pageOf(pageFrom, pageConds) };
}

/** The most episodes a first page read beside the count (boundedWalk) may visit. */
const BOUNDED_WALK_MAX = 20_000;

/**
 * The first page of a walk of the sort's index that visits at most `visits` episodes (null when
 * that is past BOUNDED_WALK_MAX, or on failure): when it holds a full page, that page is the
 * filtered list's first (every match it passed over is in it), so it can be read before the
 * count says how many match. A nullable key walks its keyed episodes (readPageRows).
 */
async function boundedWalk(
  sql: Sql,
  {
    conds,
    params,
    sort,
    dir,
    pageSize,
    columns,
    visits,
  }: {
    conds: string[];
    params: Record<string, unknown>;
    sort: EpisodeSortSpec;
    dir: "ASC" | "DESC";
    pageSize: number;
    columns: string;
    visits: number;
  },
): Promise<Array<Record<string, unknown>> | null> {
  if (!(visits <= BOUNDED_WALK_MAX)) return null;
  const order = `${sort.expr} ${dir}, e."id" ${dir}`;
  // The walk is a subquery with its own LIMIT: the planner keeps it an index walk and tests the filters on its rows only.
  const walk = `SELECT * FROM "Episode" e${sort.nullable ? ` WHERE ${sort.expr} IS NOT NULL` : ""} ORDER BY ${order} LIMIT ${Math.ceil(visits)}`;
  try {
    return await sql.all(`SELECT ${columns} FROM (${walk}) e WHERE ${conds.join(" AND ")} ORDER BY ${order} LIMIT ${Math.trunc(pageSize)}`, params);
  } catch {
    return null;
  }
}

/**
 * The rows of one page, planned (readEpisodePage): read from `from` under `conds` in the sort's
 * order. `countFrom` and `countConds` count the keyed episodes of a nullable key when the page
 * holds none of them.
 */
async function readPageRows(
  sql: Sql,
  {
    from,
    conds,
    countFrom,
    countConds,
    params,
    sort,
    dir,
    offset,
    pageSize,
    columns,
    heldStore,
  }: {
    from: string;
    conds: string[];
    countFrom: string;
    countConds: string[];
    params: Record<string, unknown>;
    sort: EpisodeSortSpec;
    dir: "ASC" | "DESC";
    offset: number;
    pageSize: number;
    columns: string;
    heldStore?: string;
  },
): Promise<Array<Record<string, unknown>>> {
  const read = (extra: string[], keys: string[], limit: number, skip: number) => {
    const order = walkOrder(keys, dir);
    const all = [...conds, ...extra];
    const whereAll = all.length ? `WHERE ${all.join(" AND ")}` : "";
    const args = { ...params, limit, offset: skip };
    // A first page without filters is a statement without parameters, which PostgreSQL's
    // connections keep planned (lib/db/sql.ts preparedName): planning it over Episode's indexes
    // took longer than running it. Deeper pages keep their offset bound (each would be a text).
    if (!skip && !Object.keys(params).length && sql.dialect.foldsStatements)
      return sql.all(`SELECT ${columns} FROM ${from} ${whereAll} ORDER BY ${order} LIMIT ${Math.trunc(limit)}`);
    if (!skip || !sql.dialect.foldsStatements) return sql.all(`SELECT ${columns} FROM ${from} ${whereAll} ORDER BY ${order} LIMIT @limit OFFSET @offset`, args);
    // The page's ids first, from the walk alone (index-only on the sort's (key, id, searchKey)
    // index when nothing but a search is tested), then their rows: PostgreSQL's OFFSET otherwise reads the table row
    // of every skipped episode (page 1,000 by date: 32 ms; its ids alone, 6 ms).
    const walk = () =>
      sql.all(
        `SELECT ${columns} FROM (SELECT e."id" FROM ${from} ${whereAll} ORDER BY ${order} LIMIT @limit OFFSET @offset) k JOIN "Episode" e ON e."id" = k."id" ORDER BY ${order}`,
        args,
      );
    // Deep in a walk, from the mark before the page (lib/db/list-held.ts).
    return heldStore ? readDeepPage(sql, { store: heldStore, from, conds: all, params, keys, dir }, { columns, limit, skip }, walk) : walk();
  };
  if (!sort.nullable) return read([], [sort.expr, `e."id"`], pageSize, offset);
  // NULLs sort last both ways. One ORDER BY saying so (NULLS LAST) is an order no index of the
  // engines gives both ways (SQLite's puts NULLs first ascending, PostgreSQL's first descending),
  // so the page was a sort of every match. Instead: the keyed episodes in the index's order, then,
  // once they run out, the unkeyed ones by id (each a walk of the sort's index).
  const keyed = await read([`${sort.expr} IS NOT NULL`], [sort.expr, `e."id"`], pageSize, offset);
  if (keyed.length === pageSize) return keyed;
  // How many keyed episodes come before the unkeyed: known when this page holds some, else counted
  // (as the total is: through the filters' indexes, not a walk of the sort's).
  const before = keyed.length
    ? offset + keyed.length
    : Number(
        (await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${countFrom} WHERE ${[...countConds, `${sort.expr} IS NOT NULL`].join(" AND ")}`, params))!.n,
      );
  const unkeyed = await read([`${sort.expr} IS NULL`], [`e."id"`], pageSize - keyed.length, Math.max(0, offset - before));
  return [...keyed, ...unkeyed];
}

/**
 * The FROM and WHERE of an aggregate over the viewer's filtered set (`Episode e`). Full-text
 * search drives it from the matching episodes' keys (a CTE joined to Episode) rather than testing
 * every episode against that set, which SQLite plans poorly.
 */
export function whereOf(f: EpisodeFilters, d: Dialect): { cte: string; from: string; sql: string; params: Record<string, unknown> } {
  const { parts, params, fts } = listConditions(f, d);
  let cte = "";
  let from = `"Episode" e`;
  if (fts) {
    params.fts = fts;
    cte = `WITH hits("k") AS (${d.searchHits("@fts")})`;
    from = `hits h ${d.drivingJoin} "Episode" e ON e."searchKey" = h."k"`;
  }
  return { cte, from, sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}
