import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import { parseDatasetFile } from "@/lib/datasets/formats";
import { DATASETS_DIR, sharedIntercodeDir } from "@/lib/datasets/paths";
import type { SqlTask } from "@/lib/datasets/types";
import { createMysqlEngine } from "@/lib/sql/mysql-engine";
import { createSqliteEngine } from "@/lib/sql/sqlite-engine";
import type { SqlEngine } from "@/lib/sql/types";
import { goldCheckSql } from "./gold-check-sql";
import { createSqlEnvironment, RESET_NOTE } from "./sql";

const SQL_URL = config().sqlUrl;
const spider = () => parseDatasetFile(path.join(sharedIntercodeDir(), "sql", "spider", "ic_spider_dev.json"), { dataset: "spider-dev" }) as SqlTask[];
const demo = () => parseDatasetFile(path.join(DATASETS_DIR, "demo-sql.json"), { dataset: "demo-sql" }) as SqlTask[];

interface LoggedEpisode {
  query_idx: number;
  reward: number;
  trajectory: { action: string; observation: string }[];
}

/** Replays the human players' episodes from InterCode's log; counts identical observations and equal rewards. */
async function replayHumanLog(engine: SqlEngine): Promise<{ same: number; total: number; rewardsEqual: number; episodes: number }> {
  const log = JSON.parse(readFileSync(path.join(sharedIntercodeDir(), "results-sample", "sql", "ic_sql_multiturn_human_10_turns.json"), "utf8")) as Record<
    string,
    LoggedEpisode
  >;
  const tasks = spider();
  const env = createSqlEnvironment({ engine });
  let same = 0;
  let total = 0;
  let rewardsEqual = 0;
  try {
    for (const ep of Object.values(log)) {
      await env.reset(tasks[ep.query_idx]);
      for (const turn of ep.trajectory) {
        if (/^\s*submit\s*;?\s*$/i.test(turn.action)) continue;
        const r = await env.step(turn.action);
        total++;
        if (r.observation === turn.observation) same++;
      }
      if ((await env.evaluate()).reward === ep.reward) rewardsEqual++;
    }
  } finally {
    await env.close();
  }
  return { same, total, rewardsEqual, episodes: Object.keys(log).length };
}

describe("SQL environment on SQLite", () => {
  let dir: string;
  let engine: SqlEngine;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ic-sql-env-"));
    engine = createSqliteEngine({ spiderDir: path.join(dir, "spider") });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs an episode: query as first observation, rows as tuples, reward IoU × tau", async () => {
    const task = spider()[953];
    const env = createSqlEnvironment({ engine });
    try {
      expect((await env.reset(task)).observation).toBe(task.query);
      const one = await env.step("select t1.id from visitor as t1 join visit as t2 on t1.id = t2.visitor_id group by t1.id having count(*) > 1;");
      expect(one).toMatchObject({ observation: "(3,)(5,)(6,)", ok: true, done: false });
      expect((await env.evaluate()).reward).toBe(0);
      // Gold's rows in reverse order: full overlap, tau = -1 → reward 0 (kept in [0, 1]).
      await env.step(
        "select t1.id, t1.name, t1.age from visitor as t1 join visit as t2 on t1.id = t2.visitor_id group by t1.id having count(*) > 1 order by t1.id desc",
      );
      const reversed = await env.evaluate();
      expect(reversed.breakdown).toMatchObject({ kind: "sql", overlap: 1, order: -1 });
      // Two of gold's three rows, in order: IoU 2/3, tau 1.
      await env.step(
        "select t1.id, t1.name, t1.age from visitor as t1 join visit as t2 on t1.id = t2.visitor_id group by t1.id having count(*) > 1 order by t1.id limit 2",
      );
      expect((await env.evaluate()).reward).toBe(0.67);
      const last = await env.step(
        "select t1.id, t1.name, t1.age from visitor as t1 join visit as t2 on t1.id = t2.visitor_id group by t1.id having count(*) > 1;",
      );
      expect(last.observation).toBe("(3, 'Arjen Robben', 27)(5, 'Fernando Gago', 36)(6, 'Rafael van der Vaart', 25)");
      const done = await env.step("submit");
      expect(done).toMatchObject({ done: true, submitted: { reward: 1, breakdown: { kind: "sql", overlap: 1 } } });
      expect(done.submitted?.goldObservation).toBe(last.observation);
      await expect(env.step("select 1")).rejects.toThrow(/ended/);
    } finally {
      await env.close();
    }
  });

  it("scores a failing last query 0 and says when a killed query reset the database", async () => {
    const env = createSqlEnvironment({ engine, limits: { timeoutMs: 400 } });
    try {
      await env.reset(spider()[0]);
      await env.step("delete from people");
      const r = await env.step("with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c");
      expect(r.ok).toBe(false);
      expect(r.timedOut).toBe(true);
      expect(r.observation).toContain("Error executing query: Query execution was interrupted");
      expect(r.observation).toContain(RESET_NOTE.trim());
      expect((await env.evaluate()).reward).toBe(0);
      expect((await env.step("select count(*) from people")).observation).toBe("(7,)");
    } finally {
      await env.close();
    }
  });

  it("replays InterCode's human SQL episodes with the same rewards", async () => {
    const r = await replayHumanLog(engine);
    expect(r.rewardsEqual).toBe(r.episodes);
    // Row order of GROUP BY / joins without ORDER BY and MySQL-only errors differ; most observations match byte for byte.
    expect(r.same / r.total).toBeGreaterThan(0.7);
  });

  it("gold-checks the demo set and a slice of Spider dev perfectly", async () => {
    const d = await goldCheckSql({ tasks: demo(), engine });
    expect(d.tasks).toBeGreaterThanOrEqual(20);
    expect(d.failures).toEqual([]);
    const s = await goldCheckSql({ tasks: spider().slice(0, 120), engine });
    expect(s.perfect).toBe(120);
  });
});

describe("SQL environment on MariaDB (IC_SQL_URL)", () => {
  it("has a server when CI requires one", () => {
    if (config().requireMysql) expect(SQL_URL, "IC_REQUIRE_MYSQL=1 but IC_SQL_URL is not set").toBeTruthy();
  });

  describe.runIf(SQL_URL)("with a server", () => {
    let engine: SqlEngine;
    beforeAll(() => {
      engine = createMysqlEngine({ url: SQL_URL! });
    });
    afterAll(async () => {
      await engine.close();
    });

    it("isolates episodes, stops long queries and keeps other databases out of reach", async () => {
      const a = await engine.open("concert_singer");
      try {
        expect(await a.query("drop table singer")).toMatchObject({ ok: true });
        expect(await a.query("select count(*) from singer")).toMatchObject({ ok: false, error: "Table 'concert_singer.singer' doesn't exist" });
        const b = await engine.open("concert_singer");
        const count = await b.query("select count(*) from singer");
        await b.close();
        expect(count.ok && count.result.rows).toEqual([[6n]]);
        const slow = await a.query("select sleep(5)", { timeoutMs: 500 });
        expect(slow).toMatchObject({ ok: false, timedOut: true });
        expect((await a.query("select count(*) from stadium")).ok).toBe(true);
        for (const q of ["select * from world_1.city limit 1", "use world_1", "select * from mysql.user", "create database evil"]) {
          expect((await a.query(q)).ok, q).toBe(false);
        }
      } finally {
        await a.close();
      }
      const c = await engine.open("concert_singer");
      const again = await c.query("select count(*) from singer");
      await c.close();
      expect(again.ok && again.result.rows).toEqual([[6n]]);
    });

    it("replays InterCode's human SQL episodes with the same rewards", async () => {
      const r = await replayHumanLog(engine);
      expect(r.rewardsEqual).toBe(r.episodes);
      expect(r.same / r.total).toBeGreaterThan(0.75);
    });

    it("gold-checks the demo set perfectly", async () => {
      const d = await goldCheckSql({ tasks: demo(), engine });
      expect(d.failures).toEqual([]);
    });
  });
});
