import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { SEARCH_DRIVE_LIMIT } from "./episode-filters";
import { appendTurn, createEpisode, deleteEpisodeById, listEpisodes, listViewerEpisodes } from "./episodes";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { withSql, withSqlTransaction } from "./sql";

// More episodes than SEARCH_DRIVE_LIMIT contain "common", so both query plans (driven from the
// hits, and driven from the sort order) run against the same data and must agree with a plain
// computation over the generated episodes.
const N = SEARCH_DRIVE_LIMIT + 400;
const eps: BulkEpisode[] = Array.from({ length: N }, (_, i) => ({
  sourceKey: `plan-${i}`,
  environment: i % 3 === 0 ? "sql" : "bash",
  dataset: "d",
  taskId: String(i),
  query: `task ${i}`,
  playerKind: "model",
  model: i % 2 ? "m1" : "m2",
  turnLimit: 10,
  status: "submitted",
  reward: (i % 7) / 10,
  success: false,
  startedAt: 1_700_000_000_000 + (i % 50) * 1000,
  turns: [{ index: 0, actor: "model", action: i % 11 === 0 ? "ls rare" : "ls", observation: i < N - 10 ? "common output" : "other", ok: true }],
}));

const expected = (pred: (e: BulkEpisode) => boolean) =>
  eps
    .filter(pred)
    .sort((a, b) => (b.reward ?? 0) - (a.reward ?? 0) || 0)
    .map((e) => e.reward);

describe.each(storeEngines())("search plans on %s", (engine) => {
  useTempStore("plans", engine);
  beforeAll(async () => {
    await insertEpisodesBulk({ episodes: eps });
  });

  it("a common word (many hits) and a rarer one give the right totals and order, with and without filters", async () => {
    const common = await listEpisodes({ search: "common", sort: { key: "reward", dir: "desc" }, pageSize: 100 });
    expect(common.total).toBe(N - 10);
    expect(common.rows.map((r) => r.reward)).toEqual(expected((e) => e.turns[0].observation === "common output").slice(0, 100));
    const commonSql = await listEpisodes({ search: "common", filters: { environment: "sql" }, sort: { key: "reward", dir: "desc" }, page: 3 });
    const want = expected((e) => e.turns[0].observation === "common output" && e.environment === "sql");
    expect(commonSql.total).toBe(want.length);
    expect(commonSql.rows.map((r) => r.reward)).toEqual(want.slice(100, 150));
    const rare = await listEpisodes({ search: "rare", filters: { model: "m1" } });
    expect(rare.total).toBe(eps.filter((e) => e.turns[0].action === "ls rare" && e.model === "m1").length);
    const viewer = await listViewerEpisodes({ filters: { search: "common" }, sort: "reward" });
    expect(viewer.total).toBe(N - 10);
    expect(viewer.rows.map((r) => r.reward)).toEqual(common.rows.slice(0, 50).map((r) => r.reward));
    expect((await listViewerEpisodes({ filters: { search: "common", environment: ["sql"] } })).total).toBe(want.length);
  });

  it("keeps each episode's document current: new turns are searchable, a deleted episode is gone", async () => {
    const ep = await createEpisode({ environment: "bash", dataset: "d", taskId: "x", query: "live capybara", playerKind: "human", turnLimit: 5 });
    expect((await listEpisodes({ search: "capybara" })).total).toBe(1);
    await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "human", action: "echo axolotl", observation: "axolotl" } });
    await appendTurn({ episodeId: ep.id, turn: { index: 1, actor: "human", action: "pwd", observation: "/narwhal" } });
    expect((await listEpisodes({ search: "capybara axolotl narwhal" })).rows.map((r) => r.id)).toEqual([ep.id]);
    await deleteEpisodeById({ id: ep.id });
    expect((await listEpisodes({ search: "axolotl" })).total).toBe(0);
    expect((await listEpisodes({ search: "capybara" })).total).toBe(0);
  });

  /**
   * PostgreSQL's word bitmaps ("EpisodeWord", see the search_word_bits migration) against the
   * documents they are kept from: every (word, search key) a document holds is a set bit, and no
   * other bit is set.
   */
  const bitmapDrift = () =>
    withSql((sql) =>
      sql.all<{ word: string; block: number; side: string }>(
        `WITH docs AS (SELECT w AS "word", t."searchKey" >> 10 AS "block", ic_word_flip(CAST(repeat('0', 1024) AS BIT VARYING), array_agg(t."searchKey")) AS "bits"
                       FROM "EpisodeText" t, unnest(tsvector_to_array(t."doc")) w GROUP BY 1, 2),
              kept AS (SELECT "word", "block", "bits" FROM "EpisodeWord" WHERE "bits" <> CAST(repeat('0', 1024) AS BIT VARYING))
         (SELECT "word", "block", 'documents' AS side FROM (SELECT * FROM docs EXCEPT SELECT * FROM kept) a)
         UNION ALL (SELECT "word", "block", 'bitmaps' FROM (SELECT * FROM kept EXCEPT SELECT * FROM docs) b)
         ORDER BY 1, 2 LIMIT 20`,
      ),
    );
  /** Search keys of the episodes a search's bitmap (ic_search_bits) holds. */
  const bitmapHits = (q: string) =>
    withSql(async (sql) =>
      (
        await sql.all<{ k: number }>(
          `SELECT g.k FROM (SELECT ic_search_bits(to_tsquery('simple', ?)) AS b OFFSET 0) s, generate_series(0, length(s.b) * 8 - 1) AS g(k) WHERE get_bit(s.b, g.k # 7) = 1 ORDER BY 1`,
          [q],
        )
      ).map((r) => Number(r.k)),
    );
  const ginHits = (q: string) =>
    withSql(async (sql) =>
      (await sql.all<{ k: number }>(`SELECT "searchKey" AS k FROM "EpisodeText" WHERE "doc" @@ to_tsquery('simple', ?) ORDER BY 1`, [q])).map((r) =>
        Number(r.k),
      ),
    );

  it.skipIf(engine !== "postgresql")(
    "PostgreSQL's word bitmaps follow every document through inserts, new turns, edits, deletes and concurrent writers",
    async () => {
      expect(await bitmapDrift()).toEqual([]);
      for (const q of ["common", "rare", "ls & rare", "comm:*", "common & other", "nosuchword", "task & 17"])
        expect(await bitmapHits(q), q).toEqual(await ginHits(q));
      const ep = await createEpisode({ environment: "bash", dataset: "d", taskId: "bits", query: "quokka wombat", playerKind: "human", turnLimit: 5 });
      await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "human", action: "echo platypus", observation: "platypus wombat" } });
      await withSql((sql) => sql.run(`UPDATE "Episode" SET "query" = 'dingo' WHERE "id" = ?`, [ep.id]));
      expect(await bitmapDrift()).toEqual([]);
      expect(await bitmapHits("quokka")).toEqual([]);
      expect(await bitmapHits("dingo & platypus & wombat")).toEqual(await ginHits("dingo & platypus & wombat"));
      expect((await bitmapHits("dingo")).length).toBe(1);
      // Writers at once, in one block of search keys and over the same words: their rows of
      // "EpisodeWord" are locked in one order, so they wait for each other and none deadlocks.
      const many = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const e = await createEpisode({ environment: "bash", dataset: "d", taskId: `w${i}`, query: `dingo echidna ${i}`, playerKind: "human", turnLimit: 5 });
          for (let t = 0; t < 3; t++)
            await appendTurn({ episodeId: e.id, turn: { index: t, actor: "human", action: `echo kiwi${t}`, observation: `kiwi${t} dingo` } });
          return e.id;
        }),
      );
      expect(await bitmapDrift()).toEqual([]);
      expect((await bitmapHits("dingo & kiwi2")).length).toBe(8);
      for (const id of [ep.id, ...many]) await deleteEpisodeById({ id });
      expect(await bitmapDrift()).toEqual([]);
      expect(await bitmapHits("dingo")).toEqual([]);
      // A store copied over another (--replace) empties the documents with TRUNCATE: their bitmaps go too (rolled back here).
      const truncated = withSqlTransaction(async (sql) => {
        await sql.run(`TRUNCATE "EpisodeText"`);
        expect(Number((await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "EpisodeWord"`))!.n)).toBe(0);
        throw new Error("roll back");
      });
      await expect(truncated).rejects.toThrow("roll back");
      expect(await bitmapHits("common")).toEqual(await ginHits("common"));
    },
  );

  it("every plan (sort-index walk, filter index and sort, hits-driven) gives the order a plain sort gives, ties broken on id", async () => {
    // Ids grow with insertion order, so ties on the sort key break by position in `eps`.
    const plain = (pred: (e: BulkEpisode) => boolean, key: (e: BulkEpisode) => number, dir: 1 | -1) =>
      eps
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => pred(e))
        .sort((a, b) => dir * (key(a.e) - key(b.e)) || dir * (a.i - b.i))
        .map(({ e }) => e.taskId);
    const cases: Array<{ filter: (e: BulkEpisode) => boolean; filters: { environment?: string; model?: string; rewardMin?: number }; search?: string }> = [
      { filter: (e) => e.environment === "sql", filters: { environment: "sql" } },
      // a range: counted from the statistics index
      { filter: (e) => e.environment === "bash" && (e.reward ?? 0) >= 0.3, filters: { environment: "bash", rewardMin: 0.3 } },
      { filter: (e) => (e.reward ?? 0) >= 0.5, filters: { rewardMin: 0.5 }, search: "common" },
      { filter: (e) => e.model === "m1", filters: { model: "m1" }, search: "common" },
      { filter: (e) => e.model === "m2" && e.turns[0].action === "ls rare", filters: { model: "m2" }, search: "rare" },
      // A prefix of one word (SQLite reads it as the word), and one of 1,111 (left a prefix)
      { filter: (e) => e.model === "m1" && e.turns[0].observation === "common output", filters: { model: "m1" }, search: "Comm*" },
      { filter: (e) => e.turns[0].observation === "common output" && e.environment === "sql", filters: { environment: "sql" }, search: "task comm*" },
      { filter: (e) => e.taskId.startsWith("1"), filters: {}, search: "1*" },
      { filter: (e) => e.taskId.startsWith("1") && e.environment === "sql", filters: { environment: "sql" }, search: "task 1*" },
    ];
    const sorts = [
      { key: "reward" as const, get: (e: BulkEpisode) => e.reward ?? 0 },
      { key: "startedAt" as const, get: (e: BulkEpisode) => e.startedAt },
    ];
    for (const c of cases) {
      const pred = (e: BulkEpisode) => c.filter(e) && (c.search !== "common" || e.turns[0].observation === "common output");
      for (const s of sorts) {
        for (const dir of ["asc", "desc"] as const) {
          const all = plain(pred, s.get, dir === "asc" ? 1 : -1);
          const want = all.slice(50, 100);
          const store = await listEpisodes({ filters: c.filters, search: c.search, sort: { key: s.key, dir }, page: 2 });
          expect(
            store.rows.map((r) => r.taskId),
            `${JSON.stringify(c.filters)} ${c.search} ${s.key} ${dir}`,
          ).toEqual(want);
          const viewer = await listViewerEpisodes({
            filters: {
              environment: c.filters.environment ? [c.filters.environment] : undefined,
              model: c.filters.model ? [c.filters.model] : undefined,
              rewardMin: c.filters.rewardMin,
              search: c.search,
            },
            sort: s.key,
            dir,
            page: 2,
          });
          expect(viewer.rows.map((r) => r.taskId)).toEqual(want);
          expect(store.total).toBe(all.length);
          expect(viewer.total).toBe(all.length);
        }
      }
    }
  });
});
