import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pyReprRowsConcatenated } from "@/lib/reward/python-repr";
import { createSqliteEngine, TIMEOUT_MESSAGE, type SqliteEngine } from "./sqlite-engine";
import type { QueryOutcome } from "./types";

function rows(r: QueryOutcome): string {
  if (!r.ok) throw new Error(`query failed: ${r.error}`);
  return pyReprRowsConcatenated(r.result.rows);
}

describe("SQLite engine", () => {
  let dir: string;
  let engine: SqliteEngine;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ic-sqlite-engine-"));
    engine = createSqliteEngine({ spiderDir: path.join(dir, "spider") });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers SHOW TABLES, DESCRIBE and SELECT the way InterCode's MySQL showed them", async () => {
    const s = await engine.open("dog_kennels");
    try {
      expect(rows(await s.query("show tables;"))).toBe(
        "('breeds',)('charges',)('dogs',)('owners',)('professionals',)('sizes',)('treatment_types',)('treatments',)",
      );
      expect(rows(await s.query("desc treatment_types;"))).toBe(
        "('treatment_type_code', 'varchar(10)', 'NO', 'PRI', None, '')('treatment_type_description', 'varchar(80)', 'YES', '', None, '')",
      );
      expect(rows(await s.query("select * from treatments limit 1"))).toBe(
        "(1, 14, 9, 'WALK', datetime.datetime(2018, 3, 19, 4, 39, 54), Decimal('567.0000'))",
      );
      // "..." is a string in MySQL; _ci columns compare without case.
      expect(rows(await s.query('select breed_name from breeds where breed_name = "eskimo"'))).toBe("('Eskimo',)");
      const bad = await s.query("submit;");
      expect(bad).toMatchObject({
        ok: false,
        error:
          "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'submit' at line 1",
      });
      expect(await s.query("select nope from dogs")).toMatchObject({ ok: false, error: "Unknown column 'nope' in 'field list'" });
      // Several statements: run in order, the last one's result is the answer.
      expect(rows(await s.query("create table t (a int); insert into t values (7); select a * 6 from t;"))).toBe("(42,)");
    } finally {
      await s.close();
    }
  });

  it("isolates episodes: a DROP TABLE in one is not seen by the next", async () => {
    const a = await engine.open("world_1");
    const b = await engine.open("world_1");
    expect(await a.query("drop table city")).toMatchObject({ ok: true });
    expect(await a.query("select count(*) from city")).toMatchObject({ ok: false, error: "Table 'world_1.city' doesn't exist" });
    expect(rows(await b.query("select count(*) from city"))).toBe("(4079,)");
    await a.close();
    await b.close();
    const c = await engine.open("world_1");
    expect(rows(await c.query("select count(*) from city"))).toBe("(4079,)");
    await c.close();
  });

  it("stops an endless query at the time limit and goes on with a fresh copy", async () => {
    const s = await engine.open("singer");
    try {
      await s.query("delete from song");
      const t0 = Date.now();
      const r = await s.query("with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c", { timeoutMs: 500 });
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(r).toMatchObject({ ok: false, error: TIMEOUT_MESSAGE, timedOut: true, reset: true });
      // Usable afterwards, on the task's initial state (the deleted rows are back).
      expect(rows(await s.query("select count(*) from song"))).toBe("(8,)");
    } finally {
      await s.close();
    }
  });

  it("stops a query when its signal is aborted", async () => {
    const s = await engine.open("singer");
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const r = await s.query("with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c", {
        timeoutMs: 10_000,
        signal: ac.signal,
      });
      expect(r).toMatchObject({ ok: false, aborted: true });
      expect(rows(await s.query("select count(*) from singer"))).toBe("(8,)");
    } finally {
      await s.close();
    }
  });

  it("refuses ATTACH, VACUUM INTO, load_extension and writable PRAGMAs", async () => {
    const s = await engine.open("singer");
    try {
      for (const q of [
        "ATTACH DATABASE '/etc/passwd' AS x",
        "attach 'file:/tmp/x.db' as y",
        "DETACH main",
        "VACUUM INTO '/tmp/stolen.db'",
        "select load_extension('/tmp/evil.so')",
        "PRAGMA journal_mode = WAL",
        "pragma writable_schema = 1",
        "select 1; ATTACH ':memory:' AS z",
      ]) {
        const r = await s.query(q);
        expect(r.ok, q).toBe(false);
        if (!r.ok) expect(r.error, q).toMatch(/not allowed/);
      }
      // Read-only schema PRAGMAs are fine.
      expect((await s.query("pragma table_info(song)")).ok).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("caps the rows kept from a huge result", async () => {
    const s = await engine.open("world_1");
    try {
      const r = await s.query("select a.ID from city a, city b limit 200000");
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.result.truncated).toBe(true);
        expect(r.result.rows.length).toBeLessThanOrEqual(100_000);
      }
    } finally {
      await s.close();
    }
  });

  it("gives every session opened from the warm pool the database's initial state", async () => {
    // Speed is the benchmark's business (npm run bench -- env); this checks what a reset gives.
    for (let i = 0; i < 5; i++) {
      const s = await engine.open("world_1");
      try {
        expect(rows(await s.query("select count(*) from city"))).toBe("(4079,)");
        await s.query("delete from city");
        expect(rows(await s.query("select count(*) from city"))).toBe("(0,)");
      } finally {
        await s.close();
      }
    }
  });
});
