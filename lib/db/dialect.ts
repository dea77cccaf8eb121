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
   * A search tested on an episode (`e`) whose search key is in [a, b], for the count estimate's
   * sample windows. SQLite reads the hits of that rowid range of FTS5. PostgreSQL tests each of the
   * window's episodes (searchHas): a key range beside the GIN index read the word's whole posting
   * list once per window (16 at a million episodes, most of a page's time).
   */
  searchInKeys(param: string, a: string, b: string): string;
  /**
   * How many hits of a search have a search key in [a, b], as column "m" (the count estimate's
   * window for a search without other filters). PostgreSQL reads the window's documents in key
   * order and tests each: a third cheaper than testing each episode's (searchInKeys), which looks
   * its document up by key.
   */
  searchHitsInKeys(param: string, a: string, b: string): string;
  /** What one searchHas test costs, in hits of searchHits read whole (measured at a million episodes, warm: SQLite 60 µs against 0.2 µs, PostgreSQL 3-9 µs against 2-4.5 µs). */
  readonly searchHasCost: number;
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

export const SQLITE: Dialect = {
  name: "sqlite",
  indexedBy: (index) => ` INDEXED BY "${index}"`,
  walkConditions: (conds) => conds,
  searchHas: (param) => `EXISTS (SELECT 1 FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param} AND rowid = e."searchKey")`,
  searchHasCost: 300,
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
  trunc: (expr) => `CAST(${expr} AS INTEGER)`,
  drivingJoin: "CROSS JOIN",
  foldsStatements: false,
  estimatesRows: false,
};

export const POSTGRES: Dialect = {
  name: "postgresql",
  indexedBy: () => "",
  walkConditions: (conds) => [`COALESCE((${conds.join(" AND ")}), FALSE)`],
  // OFFSET 0 keeps the planner from turning the EXISTS back into a hash of every hit.
  searchHas: (param) => `EXISTS (SELECT 1 FROM "EpisodeText" t WHERE t."searchKey" = e."searchKey" AND t."doc" @@ to_tsquery('simple', ${param}) OFFSET 0)`,
  searchHasCost: 3,
  searchInKeys: (param) => POSTGRES.searchHas(param),
  // Tested in the CASE, not the WHERE: there the planner would read the word's whole posting list for each window.
  searchHitsInKeys: (param, a, b) =>
    `SELECT SUM(CASE WHEN t."doc" @@ to_tsquery('simple', ${param}) THEN 1 ELSE 0 END) AS "m" FROM "EpisodeText" t WHERE t."searchKey" BETWEEN ${a} AND ${b}`,
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
  countHits: (param) => `SELECT COUNT(*) AS "n" FROM "EpisodeText" WHERE "doc" @@ to_tsquery('simple', ${param})`,
  trunc: (expr) => `CAST(TRUNC(${expr}) AS INTEGER)`,
  drivingJoin: "JOIN",
  foldsStatements: true,
  estimatesRows: true,
};
