/**
 * What differs between the store's two engines in raw SQL, in one place: everything else in
 * lib/db's statements is written once. SQLite (better-sqlite3) and PostgreSQL (pg).
 */
export interface Dialect {
  readonly name: "sqlite" | "postgresql";
  /** Forces a scan of a named index where the planner chooses badly (SQLite's INDEXED BY; PostgreSQL plans for itself). */
  indexedBy(index: string): string;
  /**
   * The WHERE conditions of a page that walks its sort index (see readEpisodePage). SQLite is told
   * the index (indexedBy) and keeps them as they are. PostgreSQL cannot be told: it misjudges how
   * many episodes a tag's LIKE or a search matches (a few dozen for tens of thousands), reads them
   * all through the filter's index and sorts them. Behind COALESCE the conditions are one opaque
   * test that no index serves and that the planner takes to pass often, so it walks; a search's
   * IN then becomes a hash of the hits probed per episode, not a join over every episode.
   */
  walkConditions(conds: string[]): string[];
  /**
   * A search tested on one episode (`e`) with the full-text query in `param`, for a walk that
   * visits few episodes of a large hit set: reading the set whole (searchHits) costs a table row
   * a hit on PostgreSQL.
   */
  searchHas(param: string): string;
  /**
   * A search's test in a walk of a sort's index (readEpisodePage) that visits `visits` of the
   * store's `episodes` over `hits` hits (`query` is the bound query, searchQuery's): each walked
   * episode tested alone (searchHas) while the walk is short, else against the whole hit set.
   * SQLite's set is a hash of FTS5's hits (60 µs a test against 0.2 µs a hit); a prefix is always
   * the set (see SQLITE_PREFIX). PostgreSQL's is a bitmap over search keys built once from
   * "EpisodeWord" (ic_search_bits, see its migration: 2-4 ms at a million episodes, a few
   * nanoseconds an episode), against a lookup of each walked episode's document (1.5-6 µs); its
   * hits read whole would cost a row of "EpisodeText" each.
   */
  walkSearch(param: string, walk: { query: string; visits: number; hits: number; episodes: number }): string;
  /**
   * How many episodes a walk of a sort's index that tests a search and nothing else may visit per
   * match it would otherwise read and sort (other walks: WALK_OVER_SORT in episode-filters.ts).
   * PostgreSQL tests each walked episode's key, from the index entry, against the search's bitmap
   * (0.12-0.15 µs an episode at a million), where reading a match costs its document's row (the GIN
   * index's hit), its episode's row and the sort: search 'command not found' (16,781 hits), page
   * 100 by date, walked 41-52 ms, read and sorted 130-400 ms. SQLite reads FTS5's hits at 0.2 µs
   * each: its walk and its reading stay as far apart as any filter's.
   */
  readonly searchWalkOverSort: number;
  /**
   * A search tested on an episode (`e`) whose search key is in [a, b], for the count estimate's
   * sample windows. SQLite reads the hits of that rowid range of FTS5. PostgreSQL tests each of the
   * window's episodes against the search's bitmap (built once for the sample's 16 windows; a
   * lookup of each one's document cost 8,000 of them, a key range beside the GIN index the word's
   * whole posting list once per window).
   */
  searchInKeys(param: string, a: string, b: string): string;
  /**
   * How many hits of a search have a search key in [a, b], as column "m" (the count estimate's
   * window for a search without other filters): SQLite's FTS5 rowid range, PostgreSQL's bits of
   * the search's bitmap.
   */
  searchHitsInKeys(param: string, a: string, b: string): string;
  /** A DateTime column's value for a bound parameter, from Unix milliseconds. */
  time(ms: number): number | string;
  /** A bound list of strings, tested by `expr ${inList("@p")}`. */
  inList(param: string): string;
  listValue(values: readonly string[]): unknown;
  /** The full-text query for words typed by a user (null when no word is left), bound as `searchHits`'s parameter. */
  searchQuery(words: string[]): string | null;
  /** The search keys (Episode."searchKey") of the episodes matching a bound search query, as column "k". */
  searchHits(param: string): string;
  /** How many episodes match a bound search query, as column "n". */
  countHits(param: string): string;
  /** How many episodes match a bound search query, counted up to `upTo` (a common word's hits are not all read), as column "n". */
  countHitsUpTo(param: string, upTo: number): string;
  /**
   * Whether a search's hits (`query`, searchQuery's) are counted whole as cheaply as up to a limit, so a search
   * alone is given its exact total rather than a capped count and a sample's estimate: always on
   * PostgreSQL (its bitmap, 2-4 ms at a million episodes; the sample built it twice more), for a
   * prefix on SQLite (see SQLITE_PREFIX: each of the sample's 16 windows read the prefix's hits whole).
   */
  countsHitsWhole(query: string): boolean;
  /** Truncates a number to an integer (the reward histogram's bin). */
  trunc(expr: string): string;
  /**
   * Whether each statement is a round trip to a server (PostgreSQL), so the list folds its
   * count and estimate into one statement and reads a page's ids before its rows (an OFFSET reads
   * the table row of every episode it skips; SQLite defers that read to the rows it returns).
   */
  readonly foldsStatements: boolean;
  /**
   * Whether the engine's planner estimates a statement's rows from statistics kept on the table
   * (PostgreSQL's EXPLAIN, from ANALYZE's table size, most common values and, for a tsvector, its
   * most common words); SQLite keeps none worth reading.
   */
  readonly estimatesRows: boolean;
  /** An inner join whose left side drives the plan (SQLite's CROSS JOIN ... ON fixes the order; PostgreSQL plans it). */
  drivingJoin: string;
}

/** Words (letters and digits, as SQLite's unicode61 tokenizer splits them); a trailing `*` makes the last a prefix. */
function searchWords(text: string): Array<{ word: string; prefix: boolean }> {
  const out: Array<{ word: string; prefix: boolean }> = [];
  for (const w of text.split(/\s+/).filter(Boolean)) {
    const prefix = w.length > 1 && w.endsWith("*");
    const tokens = w
      .normalize("NFKC")
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    for (const [i, t] of tokens.entries()) out.push({ word: t, prefix: prefix && i === tokens.length - 1 });
  }
  return out.slice(0, 32);
}

/**
 * An episode document's text as PostgreSQL's index takes it: lower-cased, every run of characters
 * other than letters and digits made one space (what ic_search_doc does in SQL, see the postgres
 * init migration; done here for bulk import, where the SQL regular expression is the slow part).
 */
export function searchDocText(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ");
}

/**
 * An FTS5 query (SQLITE.searchQuery's) whose last word is a prefix. Without a prefix index FTS5
 * reads every hit of the prefix's words, merged, at each statement that tests it, whatever the
 * rowid asked for: at a million episodes 'synt*' costs 9 ms whole, and as many per episode tested
 * alone (searchHas: page 1 took 1.1 s) or per window of the count's sample.
 */
const SQLITE_PREFIX = /\*$/;

export const SQLITE: Dialect = {
  name: "sqlite",
  indexedBy: (index) => ` INDEXED BY "${index}"`,
  walkConditions: (conds) => conds,
  searchHas: (param) => `EXISTS (SELECT 1 FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param} AND rowid = e."searchKey")`,
  searchWalkOverSort: 4,
  walkSearch: (param, { query, visits, hits }) =>
    visits * 300 < hits && !SQLITE_PREFIX.test(query) ? SQLITE.searchHas(param) : `+e."searchKey" IN (${SQLITE.searchHits(param)})`,
  searchHitsInKeys: (param, a, b) => `SELECT COUNT(*) AS "m" FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param} AND rowid BETWEEN ${a} AND ${b}`,
  searchInKeys: (param, a, b) => `e."searchKey" IN (SELECT rowid FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param} AND rowid BETWEEN ${a} AND ${b})`,
  time: (ms) => ms,
  inList: (param) => `IN (SELECT value FROM json_each(${param}))`,
  listValue: (values) => JSON.stringify(values),
  searchQuery: (words) => {
    const parts = searchWords(words.join(" ")).map((t) => `"${t.word}"${t.prefix ? "*" : ""}`);
    return parts.length ? parts.join(" ") : null;
  },
  searchHits: (param) => `SELECT rowid AS "k" FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param}`,
  countHits: (param) => `SELECT COUNT(*) AS "n" FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param}`,
  countHitsUpTo: (param, upTo) => `SELECT COUNT(*) AS "n" FROM (${SQLITE.searchHits(param)} LIMIT ${Math.trunc(upTo)}) c`,
  countsHitsWhole: (query) => SQLITE_PREFIX.test(query),
  trunc: (expr) => `CAST(${expr} AS INTEGER)`,
  drivingJoin: "CROSS JOIN",
  foldsStatements: false,
  estimatesRows: false,
};

/**
 * PostgreSQL: a search's hits as a bitmap over search keys (ic_search_bits, see the
 * search_word_bits migration), built once in a statement (a scalar subquery that depends on no
 * row is run once), in some 2-4 ms at a million episodes.
 */
const pgSearchBits = (param: string) => `(SELECT ic_search_bits(to_tsquery('simple', ${param})))`;
/** Whether episode `e` is a hit of the search's bitmap (key k is get_bit's bit k # 7: see ic_search_bits). */
const pgHasBit = (param: string) => `get_bit(${pgSearchBits(param)}, e."searchKey" # 7) = 1`;

export const POSTGRES: Dialect = {
  name: "postgresql",
  indexedBy: () => "",
  walkConditions: (conds) => [`COALESCE((${conds.join(" AND ")}), FALSE)`],
  // OFFSET 0 keeps the planner from turning the EXISTS back into a hash of every hit.
  searchHas: (param) => `EXISTS (SELECT 1 FROM "EpisodeText" t WHERE t."searchKey" = e."searchKey" AND t."doc" @@ to_tsquery('simple', ${param}) OFFSET 0)`,
  // The bitmap is tested on the key alone: a walk of a sort's index ending in searchKey reads no table row.
  searchWalkOverSort: 40,
  walkSearch: (param, { visits, episodes }) => (visits * 800 < episodes ? POSTGRES.searchHas(param) : pgHasBit(param)),
  searchInKeys: (param) => pgHasBit(param),
  searchHitsInKeys: (param, a, b) =>
    `SELECT SUM(get_bit(x."b", g."k" # 7)) AS "m" FROM (SELECT ${pgSearchBits(param)} AS "b" OFFSET 0) x, generate_series(${a}, LEAST(${b}, length(x."b") * 8 - 1)) AS g("k")`,
  // TIMESTAMP(3) holds UTC (as Prisma writes it); a zone in the text is ignored.
  time: (ms) => new Date(ms).toISOString(),
  inList: (param) => `= ANY(CAST(${param} AS TEXT[]))`,
  listValue: (values) => [...values],
  // The same words, lower-cased as ic_search_doc indexes them (see the postgres init migration).
  searchQuery: (words) => {
    const parts = searchWords(words.join(" ")).map((t) => `${t.word.toLowerCase()}${t.prefix ? ":*" : ""}`);
    return parts.length ? parts.join(" & ") : null;
  },
  searchHits: (param) => `SELECT "searchKey" AS "k" FROM "EpisodeText" WHERE "doc" @@ to_tsquery('simple', ${param})`,
  // From the bitmap: the GIN index's hits cost a row of "EpisodeText" each.
  countHits: (param) => `SELECT COALESCE(bit_count(${pgSearchBits(param)}), 0) AS "n"`,
  // OFFSET 0: a statement reading "n" twice from this as a subquery would otherwise build the bitmap twice.
  countHitsUpTo: (param, upTo) => `SELECT LEAST(COALESCE(bit_count(${pgSearchBits(param)}), 0), ${Math.trunc(upTo)}) AS "n" OFFSET 0`,
  countsHitsWhole: () => true,
  trunc: (expr) => `CAST(TRUNC(${expr}) AS INTEGER)`,
  drivingJoin: "JOIN",
  foldsStatements: true,
  estimatesRows: true,
};
