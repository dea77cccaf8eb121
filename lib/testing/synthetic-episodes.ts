/**
 * Synthetic episodes of the InterCode shape written by the store itself: one INSERT ... SELECT
 * over a generated series per table (Episode, then its search document), so a million episodes
 * take a minute or two instead of the hours the bulk writer needs for them. For the list's bench
 * (bench/viewer.ts) and the list tests at scale. The episodes have their list columns, counters and
 * a search document (query, actions, observations), but no Turn rows: the list never reads turns.
 * Every value is a function of the episode's number, the same on both engines.
 */
import type { Sql } from "@/lib/db/sql";

/** An integer hash of the episode number `i` with a salt, 0..65535 (a multiplicative hash's middle bits; 64-bit safe). */
const h = (salt: number) => `((((s.i + ${salt}) * 2654435761) % 4294967296) / 65536)`;
/** One of `values` picked by a hash (SQL text literals; null as NULL). */
function pick(salt: number, values: readonly (string | null)[]): string {
  const lit = (v: string | null) => (v === null ? "NULL" : `'${v.replace(/'/g, "''")}'`);
  return `(CASE ${h(salt)} % ${values.length} ${values.map((v, k) => `WHEN ${k} THEN ${lit(v)}`).join(" ")} END)`;
}

const ENVS = ["bash", "sql", "python"] as const;
const MODELS = ["gpt-4", "gpt-3.5", "claude-3", "llama-3-70b", null];
const POLICIES = ["try-again", "react", "plan-solve", "single-turn"];
const PEOPLE = ["ann", "bob", "cyd"];
const HARDNESS = ["easy", "medium", "hard", "extra"];
const TAGS = ["timeout", "query-error", "gave-up", "wrong-answer"];
const STATUSES = ["submitted", "submitted", "submitted", "submitted", "submitted", "submitted", "abandoned", "error", "interrupted"];
const QUERIES = ["count the files", "list singers older than 30", "write a function that adds two numbers", "find python scripts", "show concerts by stadium"];
/** Per environment: an action and what it printed, two picked per episode. */
const TEXT: Record<(typeof ENVS)[number], string[]> = {
  bash: [
    "ls -la /testbed total 12 dir1 data.csv",
    "find /testbed -name '*.py' | wc -l 17",
    "fnd . -type f bash: fnd: command not found",
    "cat nofile cat: nofile: No such file or directory",
    "grep -r hello /testbed hello world",
    "du -sh /testbed/* 4.0K /testbed/dir1",
  ],
  sql: [
    "SHOW TABLES [('singer',), ('concert',), ('stadium',)]",
    "SELECT count(*) FROM singer [(6,)]",
    "SELECT * FROM singers Error 1146: Table 'concert_singer.singers' doesn't exist",
    "SELECT name FROM singer WHERE age > 30 [('Joe Sharp',)]",
    "SELEC * FROM stadium You have an error in your SQL syntax near 'SELEC'",
  ],
  python: [
    "def add(a, b): return a + b",
    "print(add(2, 3)) 5",
    "print(is_prime(7)) True",
    "print(x) Traceback (most recent call last): NameError: name 'x' is not defined",
  ],
};

/** What fillSyntheticEpisodes wrote. */
export interface SyntheticFill {
  /** The first and last episode number written (search keys follow them). */
  from: number;
  to: number;
}

/**
 * Writes `count` synthetic episodes numbered after the store's last search key (so a store seeded
 * by the bulk writer first keeps its episodes). `startedAt` is a minute per episode, ending now.
 * On PostgreSQL the caller passes a transaction's Sql (the per-row search triggers are switched off
 * for it, as the bulk writer does); on SQLite one statement is one transaction.
 */
export async function fillSyntheticEpisodes(sql: Sql, count: number): Promise<SyntheticFill> {
  const pg = sql.dialect.name === "postgresql";
  const last = Number((await sql.get<{ k: number | null }>(`SELECT MAX("searchKey") AS "k" FROM "Episode"`))?.k ?? 0);
  const from = last + 1;
  const to = last + count;
  const series = pg ? `generate_series(CAST(${from} AS BIGINT), ${to}) AS s(i)` : `s`;
  const withSeries = pg ? "" : `WITH RECURSIVE s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to}) `;
  const t0 = Date.now() - (to + 1) * 60_000;
  const time = (ms: string) => (pg ? `(TIMESTAMP 'epoch' + (${ms}) * INTERVAL '1 millisecond')` : `(${ms})`);
  const bool = (x: string) => (pg ? `(${x})` : `(CASE WHEN ${x} THEN 1 ELSE 0 END)`);
  const id = pg ? `'01900000-0000-7000-8000-' || lpad(CAST(s.i AS TEXT), 12, '0')` : `'01900000-0000-7000-8000-' || printf('%012d', s.i)`;
  const env = `(CASE ${h(1)} % 3 WHEN 0 THEN 'bash' WHEN 1 THEN 'sql' ELSE 'python' END)`;
  // Model is NULL on one in five (a person played): then an annotator and the "human" policy.
  const model = pick(2, MODELS);
  const turns = `(1 + ${h(3)} % 10)`;
  const solved = `(${h(4)} % 10 < 3)`;
  const cols = [
    ["id", id],
    ["environment", env],
    ["dataset", `(CASE ${h(1)} % 3 WHEN 0 THEN 'nl2bash-fs' || CAST(1 + s.i % 4 AS TEXT) WHEN 1 THEN 'spider-dev' ELSE 'mbpp' END)`],
    ["taskId", `CAST(s.i % 500 AS TEXT)`],
    ["taskIndex", `s.i % 500`],
    ["query", `${env} || ' task ' || CAST(s.i % 500 AS TEXT) || ': ' || ${pick(5, QUERIES)}`],
    ["playerKind", `(CASE WHEN ${model} IS NULL THEN 'human' ELSE 'model' END)`],
    ["annotator", `(CASE WHEN ${model} IS NULL THEN ${pick(6, PEOPLE)} END)`],
    ["model", model],
    ["policy", `(CASE WHEN ${model} IS NULL THEN 'human' ELSE ${pick(7, POLICIES)} END)`],
    ["turnLimit", "10"],
    ["mode", `'eval'`],
    ["status", pick(8, STATUSES)],
    ["reward", `(CASE WHEN ${solved} THEN 1.0 WHEN ${h(9)} % 20 = 0 THEN NULL ELSE (${h(10)} % 100) / 100.0 END)`],
    ["success", bool(solved)],
    ["solvedAtTurn", `(CASE WHEN ${solved} THEN ${turns} END)`],
    ["startedAt", time(`${t0} + s.i * 60000`)],
    ["endedAt", time(`${t0} + s.i * 60000 + 30000`)],
    ["durationMs", `(CASE WHEN ${h(11)} % 50 = 0 THEN NULL ELSE 1000 + ${h(12)} * 2 END)`],
    ["sourceKey", `'synthetic:' || CAST(s.i AS TEXT)`],
    ["hardness", `(CASE WHEN ${h(1)} % 3 = 1 THEN ${pick(13, HARDNESS)} END)`],
    // One episode in ten has a tag, one in a hundred two (sorted, space-separated as Episode.tags is).
    ["tags", `(CASE WHEN ${h(14)} % 100 = 0 THEN 'gave-up timeout' WHEN ${h(14)} % 10 = 0 THEN ${pick(15, TAGS)} ELSE '' END)`],
    ["turnCount", turns],
    ["invalidCount", `(${h(16)} % ${turns})`],
    ["checkedCount", turns],
    ["createdAt", time(`${t0} + s.i * 60000`)],
    ["updatedAt", time(`${t0} + s.i * 60000`)],
    ["searchKey", "s.i"],
  ] as const;
  await sql.run(`${withSeries}INSERT INTO "Episode" (${cols.map(([c]) => `"${c}"`).join(", ")}) SELECT ${cols.map(([, v]) => v).join(", ")} FROM ${series}`);
  const body = `(CASE ${h(1)} % 3 ${ENVS.map((e, k) => `WHEN ${k} THEN ${pick(17, TEXT[e])} || ' ' || ${pick(18, TEXT[e])}`).join(" ")} END)`;
  const doc = `e."query" || ' ' || ${body}`;
  const docs = pg
    ? `INSERT INTO "EpisodeText" ("searchKey", "doc") SELECT s.i, ic_search_doc(${doc}) FROM ${series} JOIN "Episode" e ON e."searchKey" = s.i`
    : `${withSeries}INSERT INTO "EpisodeText" (rowid, "query", "body") SELECT s.i, e."query", ${body} FROM ${series} JOIN "Episode" e ON e."searchKey" = s.i`;
  await sql.run(docs);
  if (pg) await sql.run(`SELECT setval('"Episode_searchKey_seq"', ${to})`);
  return { from, to };
}
