/**
 * The viewer bench's store of N episodes (bench/viewer.ts), on SQLite or PostgreSQL: the first
 * SEED_EPISODES through the bulk writer (with turns, for the replay measures), the rest written by
 * the store itself (lib/testing/synthetic-episodes.ts: one INSERT ... SELECT per table), then
 * analyzed. A filled store is cached between runs outside the repository, keyed by what fills it
 * (the fill's code) and N: a SQLite file under the system's temporary folder (copied for each run),
 * a PostgreSQL schema of its own (older keys' schemas are dropped). A cached store takes the
 * migrations added since it was filled (an index at a million episodes: seconds, where a refill
 * took a quarter of an hour) and is analyzed again; one whose applied migrations were edited since
 * is filled afresh. `--no-cache` fills afresh.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** Episodes written through the bulk writer, with turns (the rest have list columns and a search document only). */
export const SEED_EPISODES = 2000;

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASH_ACTIONS = [
  "ls -la /testbed",
  "find /testbed -name '*.py' | wc -l",
  "cat /testbed/dir1/notes.txt",
  "grep -r hello /testbed",
  "du -sh /testbed/*",
  "fnd . -type f",
  "sort /testbed/data.csv | uniq -c",
];
const BASH_OBS = [
  "total 12\ndrwxr-xr-x 2 root root 4096 dir1\n-rw-r--r-- 1 root root 42 data.csv",
  "17",
  "\x1b[01;34mdir1\x1b[0m  notes.txt",
  "bash: fnd: command not found",
  "cat: nofile: No such file or directory",
  "4.0K\t/testbed/dir1",
];
const SQL_ACTIONS = [
  "SHOW TABLES",
  "DESC singer",
  "SELECT count(*) FROM singer",
  "SELECT name FROM singer WHERE age > 30 ORDER BY age",
  "SELECT * FROM concert JOIN stadium ON concert.stadium_id = stadium.id",
];
const SQL_OBS = [
  "[('singer',), ('concert',), ('stadium',)]",
  "[(6,)]",
  "Error 1146: Table 'concert_singer.singers' doesn't exist",
  "[('Joe Sharp',), ('Rose White',)]",
  "You have an error in your SQL syntax",
];
const PY_ACTIONS = [
  "def add(a, b):\n    return a + b",
  "print(add(2, 3))",
  "def is_prime(n):\n    return all(n % i for i in range(2, n))",
  "print(is_prime(7))",
];
const PY_OBS = ["", "5", "True", "Traceback (most recent call last):\nNameError: name 'x' is not defined"];
const MODELS = ["gpt-4", "gpt-3.5", "claude-3", "llama-3-70b", null];
const POLICIES = ["try-again", "react", "plan-solve", "single-turn"];

/** Fills the store (IC_DB) with n synthetic episodes of the InterCode shape through the bulk writer (turns and all). */
export async function fill(n: number): Promise<void> {
  const { insertEpisodesBulk } = await import("@/lib/db/bulk-import");
  const r = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const t0 = Date.now() - n * 60_000;
  const batch = 2000;
  for (let start = 0; start < n; start += batch) {
    const episodes = [];
    for (let i = start; i < Math.min(n, start + batch); i++) {
      const env = pick(["bash", "sql", "python"] as const);
      const model = pick(MODELS);
      const turns = i % 10 === 0 ? 10 : 1 + Math.floor(r() * 10);
      const [acts, obs] = env === "bash" ? [BASH_ACTIONS, BASH_OBS] : env === "sql" ? [SQL_ACTIONS, SQL_OBS] : [PY_ACTIONS, PY_OBS];
      let reward = 0;
      const ts = Array.from({ length: turns }, (_, k) => {
        const o = pick(obs);
        reward = Math.min(1, Math.round((reward + r() * 0.3) * 100) / 100);
        return {
          index: k,
          actor: model ? ("model" as const) : ("human" as const),
          action: `${pick(acts)} -- step ${k} of episode ${i}`,
          observation: `${o}\n(${i}:${k})`,
          ok: !/error|not found|No such|Traceback/i.test(o),
          reward,
          durationMs: Math.floor(r() * 2000),
        };
      });
      const success = reward >= 1 || r() < 0.3;
      const dataset = env === "bash" ? `nl2bash-fs${1 + (i % 4)}` : env === "sql" ? "spider-dev" : "mbpp";
      episodes.push({
        // The same ids on both engines, so the bench can check that their pages agree.
        id: `01900000-0000-7000-8001-${String(i).padStart(12, "0")}`,
        sourceKey: `bench:${i}`,
        environment: env,
        dataset,
        taskId: String(i % 500),
        taskIndex: i % 500,
        query: `${env} task ${i % 500}: ${pick(["count the files", "list singers older than 30", "write a function that adds two numbers", "find python scripts", "show concerts by stadium"])}`,
        playerKind: model ? "model" : "human",
        annotator: model ? null : pick(["ann", "bob", "cyd"]),
        model,
        policy: model ? pick(POLICIES) : "human",
        turnLimit: 10,
        mode: "eval",
        status: "submitted",
        reward: success ? 1 : reward,
        success,
        solvedAtTurn: success ? turns : null,
        startedAt: t0 + i * 60_000,
        endedAt: t0 + i * 60_000 + 30_000,
        durationMs: 1000 + Math.floor(r() * 120_000),
        hardness: env === "sql" ? pick(["easy", "medium", "hard", "extra"]) : null,
        tags: r() < 0.1 ? pick(["timeout", "query-error", "gave-up", "wrong-answer"]) : "",
        turns: ts,
      });
    }
    await insertEpisodesBulk({ episodes });
  }
}

/** The cache key: the code that fills the store (the bulk seed, its size, the synthetic episodes, the fill's analysis). */
async function fillKey(): Promise<string> {
  const synthetic = fileURLToPath(new URL("../lib/testing/synthetic-episodes.ts", import.meta.url));
  const hash = createHash("sha256");
  hash.update(fill.toString());
  hash.update(fillStore.toString());
  hash.update(String(SEED_EPISODES));
  hash.update(fs.readFileSync(synthetic));
  return hash.digest("hex").slice(0, 12);
}

/**
 * Brings a cached store up to this tree's migrations (`migrate` applies them, analyzes the store
 * when it applied any, and returns their names); false when it cannot be (an applied migration was
 * edited since: fill afresh).
 */
async function migrateCached(migrate: () => Promise<string[]>): Promise<boolean> {
  try {
    const applied = await migrate();
    if (applied.length) console.log(`  the cached store took ${applied.length} migration(s) added since its fill: ${applied.join(", ")}`);
    return true;
  } catch (err) {
    console.log(`  the cached store cannot take this tree's migrations (${(err as Error).message.split("\n")[0]}): filling afresh`);
    return false;
  }
}

/** Writes n episodes into the store IC_DB names (empty and migrated on first use) and analyzes it. */
async function fillStore(n: number): Promise<void> {
  const { fillSyntheticEpisodes } = await import("@/lib/testing/synthetic-episodes");
  const { config } = await import("@/lib/config");
  const { withSql, pgTransaction, getPgPool } = await import("@/lib/db/sql");
  const seed = Math.min(n, SEED_EPISODES);
  await fill(seed);
  const store = config().store;
  if (n > seed) {
    if (store.kind === "postgresql")
      await pgTransaction(store.url, async (sql) => {
        await sql.run(`SELECT set_config('ic.fts_deferred', 'on', true)`);
        await fillSyntheticEpisodes(sql, n - seed);
      });
    else await withSql((sql) => fillSyntheticEpisodes(sql, n - seed));
  }
  // The planner's statistics (and on PostgreSQL the visibility map for index-only reads), as a store in use has them.
  if (store.kind === "postgresql") await (await getPgPool(store.url)).query("VACUUM ANALYZE");
  else await withSql((sql) => sql.run("ANALYZE"));
}

/** A prepared store: where it is (IC_DB is set to it), how long the fill took (null: from the cache), and how to let it go. */
export interface ListStore {
  db: string;
  fillS: number | null;
  release(): Promise<void>;
}

/** The SQLite store of n episodes in a fresh temporary folder (a copy of the cached file when there is one). */
export async function sqliteListStore(n: number, { cache = true } = {}): Promise<ListStore> {
  const { closeStore } = await import("@/lib/db/client");
  const cacheDir = path.join(os.tmpdir(), "ic-bench-list-cache");
  const cached = path.join(cacheDir, `sqlite-${await fillKey()}-${n}.db`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-viewer-bench-"));
  const db = path.join(dir, "studio.db");
  let fillS: number | null = null;
  const ready =
    cache &&
    fs.existsSync(cached) &&
    (await migrateCached(async () => {
      const { applyMigrations } = await import("@/lib/db/migrate");
      const { default: Database } = await import("better-sqlite3");
      const file = new Database(cached);
      try {
        const applied = applyMigrations(file);
        if (applied.length) file.exec("ANALYZE");
        return applied;
      } finally {
        file.close();
      }
    }));
  if (ready) fs.copyFileSync(cached, db);
  else {
    process.env.IC_DB = db;
    const t = performance.now();
    await fillStore(n);
    fillS = (performance.now() - t) / 1000;
    await closeStore();
    if (cache) {
      fs.mkdirSync(cacheDir, { recursive: true });
      for (const f of fs.readdirSync(cacheDir)) if (f.startsWith("sqlite-") && f.endsWith(`-${n}.db`)) fs.rmSync(path.join(cacheDir, f), { force: true });
      fs.copyFileSync(db, `${cached}.part`);
      fs.renameSync(`${cached}.part`, cached);
    }
  }
  process.env.IC_DB = db;
  return {
    db,
    fillS,
    release: async () => {
      await closeStore();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The PostgreSQL store of n episodes: a schema of its own in pgUrl's database, kept as the cache (dropped after without it). */
export async function pgListStore(pgUrl: string, n: number, { cache = true } = {}): Promise<ListStore> {
  const { withPgSchema, dropPgSchema, openPgPool } = await import("@/lib/db/postgres");
  const { closeStore } = await import("@/lib/db/client");
  const prefix = `ic_bench_list_${n}_`;
  const schema = cache ? `${prefix}${await fillKey()}` : `ic_bench_viewer_${process.pid}`;
  const db = withPgSchema(pgUrl, schema);
  const admin = await openPgPool(pgUrl, { max: 1 });
  let ready = false;
  try {
    // A cached schema is complete when its fill committed: its episode count says so.
    const found = await admin.query<{ t: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS "t"`, [`"${schema}"."Episode"`]);
    if (cache && found.rows[0]!.t) {
      const c = await admin.query<{ n: string }>(`SELECT COUNT(*) AS "n" FROM "${schema}"."Episode"`);
      ready = Number(c.rows[0]!.n) === n;
    }
    const others = await admin.query<{ s: string }>(`SELECT nspname AS "s" FROM pg_namespace WHERE nspname LIKE $1 AND nspname <> $2`, [`${prefix}%`, schema]);
    for (const o of others.rows) await admin.query(`DROP SCHEMA "${o.s}" CASCADE`);
  } finally {
    await admin.end();
  }
  if (ready) {
    const { applyPgMigrations, pgConnection } = await import("@/lib/db/postgres");
    const { config } = await import("@/lib/config");
    const pool = await openPgPool(db, { max: 1 });
    try {
      ready = await migrateCached(async () => {
        const applied = await applyPgMigrations(pool, config().pgMigrationsDir, pgConnection(db).schema);
        if (applied.length) await pool.query("VACUUM ANALYZE");
        return applied;
      });
    } finally {
      await pool.end();
    }
  }
  let fillS: number | null = null;
  if (!ready) {
    await dropPgSchema(db);
    process.env.IC_DB = db;
    const t = performance.now();
    await fillStore(n);
    fillS = (performance.now() - t) / 1000;
  }
  process.env.IC_DB = db;
  return {
    db,
    fillS,
    release: async () => {
      await closeStore();
      if (!cache) await dropPgSchema(db).catch(() => {});
    },
  };
}
