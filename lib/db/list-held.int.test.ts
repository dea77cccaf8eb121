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

/** The page as the walk from the head gives it (nothing held). */
async function walked(q: Query): Promise<string[]> {
  clearHeld();
  const ids = (await listViewerEpisodes(q)).rows.map((r) => r.id);
  await marksRead();
  clearHeld();
  return ids;
}

/**
 * Runs `attempt` (after forgetting what is held) until it says it saw what it wanted, at most 100
 * times, pausing longer after each miss (up to 0.2 s). What is held is used only while no
 * transaction commits anywhere on the server, and the other test files write to it at the same
 * time: a commit between two reads makes what the first left stale, and the second then reads
 * afresh (correct, but not what is being tested).
 */
async function whenQuiet(attempt: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    clearHeld();
    if (await attempt()) return;
    await new Promise((r) => setTimeout(r, Math.min(200, 10 * (i + 1))));
  }
  throw new Error("no quiet moment between two reads in 100 attempts");
}

describe.skipIf(!onPg)("what the list holds (PostgreSQL)", () => {
  useTempStore("marks", "postgresql");
  beforeAll(async () => {
    const store = config().store;
    if (store.kind !== "postgresql") throw new Error("expected a PostgreSQL store");
    await pgTransaction(store.url, async (sql) => {
      await sql.run(`SELECT set_config('ic.fts_deferred', 'on', true)`);
      await fillSyntheticEpisodes(sql, N);
    });
  }, 120_000);

  /** Reads `q` twice (the first leaves marks, read in the background); every read must be `expected`; true when the second started at a mark. */
  const twice = (q: Query, expected: string[]) => async () => {
    expect((await listViewerEpisodes(q)).rows.map((r) => r.id)).toEqual(expected);
    await marksRead();
    const before = heldCounts.fromMark;
    expect((await listViewerEpisodes(q)).rows.map((r) => r.id)).toEqual(expected);
    return heldCounts.fromMark === before + 1;
  };

  const cases: Array<[string, Query]> = [
    ["date descending, page 60", { page: 60 }],
    ["date ascending, page 33", { dir: "asc", page: 33 }],
    ["reward descending, page 40 (a nullable key)", { sort: "reward", page: 40 }],
    ["player ascending, page 50 (an expression)", { sort: "player", dir: "asc", page: 50 }],
    ["env=sql by turns, page 25", { filters: { environment: ["sql"] }, sort: "turnCount", page: 25 }],
    ["a search, page 21", { filters: { search: "singer" }, page: 21 }],
    ["pages of 30, page 47 (between two marks)", { page: 47, pageSize: 30 }],
  ];

  it.each(cases)("%s: the page read from a mark is the page the walk from the head gives", async (_, q) => {
    const expected = await walked(q);
    expect(expected.length).toBeGreaterThan(0);
    await whenQuiet(twice(q, expected));
  });

  it("duration ascending, the page where the keyed episodes end and the unkeyed begin (NULLs last) is the walk's", async () => {
    const keyed = Number((await withSql((sql) => sql.get<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Episode" WHERE "durationMs" IS NOT NULL`)))!.n);
    expect(keyed % 50).not.toBe(0);
    expect(keyed).toBeLessThan(N);
    const q: Query = { sort: "durationMs", dir: "asc", page: Math.floor(keyed / 50) + 1 };
    await whenQuiet(twice(q, await walked(q)));
  });

  it("a page deeper than the marks held reads more of them, after the last; a first page reads none", async () => {
    await whenQuiet(async () => {
      const before = heldCounts.read;
      await listViewerEpisodes({ page: 1 });
      await marksRead();
      expect(heldCounts.read).toBe(before);
      await listViewerEpisodes({ page: 21 });
      await marksRead();
      expect(heldCounts.read).toBe(before + (20 * 50) / MARK_EVERY);
      await listViewerEpisodes({ page: 81 });
      await marksRead();
      // The marks after the 20th are read only if the first 20 still hold.
      return heldCounts.read === before + (80 * 50) / MARK_EVERY;
    });
    expect((await listViewerEpisodes({ page: 81 })).rows.map((r) => r.id)).toEqual(await walked({ page: 81 }));
  });

  it("after a write the marks are not used: the page is the new walk's, one episode further on", async () => {
    const q: Query = { page: 60 };
    const old = await walked(q);
    await whenQuiet(twice(q, old));
    // The newest episode: first by date, so every page after moves on by one.
    await withSql((sql) =>
      sql.run(
        `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "turnLimit", "status", "startedAt", "createdAt", "updatedAt")
         VALUES ('zz-newest', 'bash', 'nl2bash-fs1', '0', 'q', 'human', 10, 'submitted', CURRENT_TIMESTAMP + INTERVAL '1 day', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
      ),
    );
    const stale = heldCounts.stale;
    const fromMark = heldCounts.fromMark;
    const now = (await listViewerEpisodes(q)).rows.map((r) => r.id);
    expect(heldCounts.stale).toBe(stale + 1);
    expect(heldCounts.fromMark).toBe(fromMark);
    expect(now.slice(1)).toEqual(old.slice(0, -1));
    expect(now).toEqual(await walked(q));
  });

  it("a commit that does not write the list's tables leaves the marks held: a page is still read from them", async () => {
    const q: Query = { page: 40 };
    const expected = await walked(q);
    await whenQuiet(async () => {
      expect((await listViewerEpisodes(q)).rows.map((r) => r.id)).toEqual(expected);
      await marksRead();
      // A write to another table, committed: the server's snapshot moves on, the list's tables do not change.
      await withSql((sql) =>
        sql.run(`INSERT INTO "ImportedFile" ("contentHash", "path", "format", "episodes", "rejected") VALUES (@h, 'zz.json', 'intercode', 0, 0)`, {
          h: `zz-${Math.random()}`,
        }),
      );
      const before = { ...heldCounts };
      expect((await listViewerEpisodes(q)).rows.map((r) => r.id)).toEqual(expected);
      expect(heldCounts.stale).toBe(before.stale);
      return heldCounts.fromMark === before.fromMark + 1;
    });
  });

  it("marks are not kept while a transaction that writes the list's tables is open: they could miss its writes once it commits", async () => {
    const store = config().store;
    if (store.kind !== "postgresql") throw new Error("expected a PostgreSQL store");
    const q: Query = { page: 30 };
    clearHeld();
    const before = (await listViewerEpisodes(q)).rows.map((r) => r.id);
    await marksRead();
    clearHeld();
    const read = heldCounts.read;
    await pgTransaction(store.url, async (sql) => {
      await sql.run(
        `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "turnLimit", "status", "startedAt", "createdAt", "updatedAt")
         VALUES ('zz-open', 'bash', 'nl2bash-fs1', '0', 'q', 'human', 10, 'submitted', CURRENT_TIMESTAMP + INTERVAL '2 days', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
      );
      // Uncommitted: the page is the one before the write, and no marks are read beside it.
      expect((await listViewerEpisodes(q)).rows.map((r) => r.id)).toEqual(before);
      await marksRead();
      expect(heldCounts.read).toBe(read);
    });
    const now = (await listViewerEpisodes(q)).rows.map((r) => r.id);
    expect(now.slice(1)).toEqual(before.slice(0, -1));
    expect(now).toEqual(await walked(q));
  });

  it("a filter's total is held for the next page of the same filter, and counted again after a write", async () => {
    const q: Query = { filters: { environment: ["sql"], success: false }, sort: "reward" };
    const exact = (await listViewerEpisodes({ ...q, exactCount: true })).total;
    await whenQuiet(async () => {
      expect(await listViewerEpisodes(q)).toMatchObject({ total: exact, totalExact: true });
      const held = heldCounts.totals;
      expect(await listViewerEpisodes({ ...q, page: 2 })).toMatchObject({ total: exact, totalExact: true });
      return heldCounts.totals === held + 1;
    });
    await withSql((sql) =>
      sql.run(
        `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "turnLimit", "status", "success", "startedAt", "createdAt", "updatedAt")
         VALUES ('zz-sql-unsolved', 'sql', 'spider-dev', '0', 'q', 'human', 10, 'submitted', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
      ),
    );
    const held = heldCounts.totals;
    expect(await listViewerEpisodes({ ...q, page: 2 })).toMatchObject({ total: exact + 1, totalExact: true });
    expect(heldCounts.totals).toBe(held);
  });

  it.each<[string, Query["filters"]]>([
    ["a search", { search: "singer" }],
    ["a search with a filter", { search: "singer", environment: ["sql"] }],
  ])("%s: its total and hits are held for the next page, and counted again after a write", async (_, filters) => {
    const q: Query = { filters };
    const exact = (await listViewerEpisodes({ ...q, exactCount: true })).total;
    expect(exact).toBeGreaterThan(MARK_EVERY);
    const second = await walked({ ...q, page: 2 });
    await whenQuiet(async () => {
      expect(await listViewerEpisodes(q)).toMatchObject({ total: exact, totalExact: true });
      const held = heldCounts.totals;
      const page = await listViewerEpisodes({ ...q, page: 2 });
      expect(page).toMatchObject({ total: exact, totalExact: true });
      expect(page.rows.map((r) => r.id)).toEqual(second);
      return heldCounts.totals === held + 1;
    });
    // A new episode whose question holds the word (its search document is written beside it).
    await withSql((sql) =>
      sql.run(
        `INSERT INTO "Episode" ("id", "environment", "dataset", "taskId", "query", "playerKind", "turnLimit", "status", "success", "startedAt", "createdAt", "updatedAt")
         VALUES (@id, 'sql', 'spider-dev', '0', 'how many singer rows are there', 'human', 10, 'submitted', false, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
        { id: `zz-singer-${filters?.environment ? "sql" : "any"}` },
      ),
    );
    const held = heldCounts.totals;
    expect(await listViewerEpisodes({ ...q, page: 2 })).toMatchObject({ total: exact + 1, totalExact: true });
    expect(heldCounts.totals).toBe(held);
  });
});
