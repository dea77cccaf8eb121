import { beforeAll, describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import { fillSyntheticEpisodes } from "@/lib/testing/synthetic-episodes";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { listViewerEpisodes } from "./episodes";
import { clearHeld, heldCounts, MARK_EVERY, marksRead } from "./list-held";
import { pgTransaction, withSql } from "./sql";

type Query = Parameters<typeof listViewerEpisodes>[0];
const N = 6000;
const onPg = storeEngines().includes("postgresql");

/** The page as the walk from the head gives it (no marks held). */
async function walked(q: Query): Promise<string[]> {
  clearHeld();
  const ids = (await listViewerEpisodes(q)).rows.map((r) => r.id);
  await marksRead();
  clearHeld();
  return ids;
}

/** The page read twice: the first read leaves marks behind (read in the background), the second starts at one. */
async function fromMarks(q: Query): Promise<{ first: string[]; again: string[] }> {
  const first = (await listViewerEpisodes(q)).rows.map((r) => r.id);
  await marksRead();
  const again = (await listViewerEpisodes(q)).rows.map((r) => r.id);
  return { first, again };
}

describe.skipIf(!onPg)("deep pages from marks (PostgreSQL)", () => {
  useTempStore("marks", "postgresql");
  beforeAll(async () => {
    const store = config().store;
    if (store.kind !== "postgresql") throw new Error("expected a PostgreSQL store");
    await pgTransaction(store.url, async (sql) => {
      await sql.run(`SELECT set_config('ic.fts_deferred', 'on', true)`);
      await fillSyntheticEpisodes(sql, N);
    });
  }, 120_000);

  const cases: Array<[string, Query]> = [
    ["date descending, page 60", { page: 60 }],
    ["date ascending, page 33", { dir: "asc", page: 33 }],
    ["reward descending, page 40 (a nullable key)", { sort: "reward", page: 40 }],
    ["player ascending, page 50 (an expression)", { sort: "player", dir: "asc", page: 50 }],
    ["env=sql by turns, page 25", { filters: { environment: ["sql"] }, sort: "turnCount", page: 25 }],
    ["a search, page 21", { filters: { search: "singer" }, page: 21 }],
  ];

  it.each(cases)("%s: the page read from a mark is the page the walk from the head gives", async (_, q) => {
    const expected = await walked(q);
    expect(expected).toHaveLength(50);
    const before = { ...heldCounts };
    const { first, again } = await fromMarks(q);
    expect(first).toEqual(expected);
    expect(again).toEqual(expected);
    expect(heldCounts.read).toBeGreaterThan(before.read);
    expect(heldCounts.fromMark).toBe(before.fromMark + 1);
  });

  it("duration ascending, the page where the keyed episodes end and the unkeyed begin (NULLs last) is the walk's", async () => {
    const keyed = Number((await withSql((sql) => sql.get<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Episode" WHERE "durationMs" IS NOT NULL`)))!.n);
    expect(keyed % 50).not.toBe(0);
    expect(keyed).toBeLessThan(N);
    const q: Query = { sort: "durationMs", dir: "asc", page: Math.floor(keyed / 50) + 1 };
    const expected = await walked(q);
    const before = heldCounts.fromMark;
    const { again } = await fromMarks(q);
    expect(again).toEqual(expected);
    expect(heldCounts.fromMark).toBe(before + 1);
  });

  it("a page deeper than the marks held reads more of them, from the last; a first page reads none", async () => {
    clearHeld();
    const before = heldCounts.read;
    await listViewerEpisodes({ page: 1 });
    await marksRead();
    expect(heldCounts.read).toBe(before);
    await listViewerEpisodes({ page: 21 });
    await marksRead();
    expect(heldCounts.read).toBe(before + Math.floor((20 * 50) / MARK_EVERY));
    const deep = await listViewerEpisodes({ page: 81 });
    await marksRead();
    expect(heldCounts.read).toBe(before + Math.floor((80 * 50) / MARK_EVERY));
    expect(deep.rows.map((r) => r.id)).toEqual(await walked({ page: 81 }));
  });

  it("after a write the marks are not used: the page is the new walk's, one episode further on", async () => {
    clearHeld();
    const q: Query = { page: 60 };
    const { again: old } = await fromMarks(q);
    // The newest episode: first by date, so every page after moves on by one.
    await withSql((sql) =>
      sql.run(
        `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "turnLimit", "status", "startedAt", "createdAt", "updatedAt")
         VALUES ('zz-newest', 'bash', 'nl2bash-fs1', '0', 'q', 'human', 10, 'submitted', CURRENT_TIMESTAMP + INTERVAL '1 day', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
      ),
    );
    const stale = heldCounts.stale;
    const now = (await listViewerEpisodes(q)).rows.map((r) => r.id);
    expect(heldCounts.stale).toBe(stale + 1);
    expect(now.slice(1)).toEqual(old.slice(0, -1));
    expect(now).toEqual(await walked(q));
  });

  it("a filter's total is held for the next page of the same filter, and counted again after a write", async () => {
    clearHeld();
    const q: Query = { filters: { environment: ["sql"], success: false }, sort: "reward" };
    const exact = (await listViewerEpisodes({ ...q, exactCount: true })).total;
    const first = await listViewerEpisodes(q);
    expect(first).toMatchObject({ total: exact, totalExact: true });
    const held = heldCounts.totals;
    const second = await listViewerEpisodes({ ...q, page: 2 });
    expect(heldCounts.totals).toBe(held + 1);
    expect(second).toMatchObject({ total: exact, totalExact: true });
    // Another filter's total is its own.
    expect((await listViewerEpisodes({ filters: { environment: ["bash"] } })).total).not.toBe(exact);
    await withSql((sql) =>
      sql.run(
        `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "turnLimit", "status", "success", "startedAt", "createdAt", "updatedAt")
         VALUES ('zz-sql-unsolved', 'sql', 'spider-dev', '0', 'q', 'human', 10, 'submitted', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
      ),
    );
    const after = heldCounts.totals;
    expect(await listViewerEpisodes({ ...q, page: 2 })).toMatchObject({ total: exact + 1, totalExact: true });
    expect(heldCounts.totals).toBe(after);
  });
});
