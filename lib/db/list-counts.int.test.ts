import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { COUNT_EXACT_UP_TO, EPISODE_SORTS, LIST_SORTS } from "./episode-filters";
import { listEpisodes, listViewerEpisodes } from "./episodes";
import { listEpisodeFacets } from "./viewer-queries";
import { pgTransaction, withSql, type Sql } from "./sql";
import { config } from "@/lib/config";
import { storeEngines, useTempStore } from "@/lib/testing/store";

// Enough episodes that a filter matches more than COUNT_EXACT_UP_TO (the list then estimates its
// total from a sample) and the store is larger than the sample (8,000 search keys).
const N = 30_000;
const eps: BulkEpisode[] = Array.from({ length: N }, (_, i) => ({
  sourceKey: `count-${i}`,
  // Not a repeating pattern along the keys, which a sample of key windows would see too kindly:
  // bash on two of three episodes in the first half, one of three in the second.
  environment: (i < N / 2 ? i % 3 !== 0 : i % 3 === 0) ? "bash" : "sql",
  dataset: "d",
  taskId: String(i % 100),
  query: `task ${i}`,
  playerKind: "model",
  model: i % 5 === 0 ? "rare-model" : "m",
  turnLimit: 10,
  status: "submitted",
  reward: (i % 10) / 10,
  success: i % 10 === 9,
  startedAt: 1_700_000_000_000 + i * 1000,
  // NULL on one in seven (a nullable sort key: NULLs last both ways).
  durationMs: i % 7 === 0 ? null : (i * 37) % 1000,
  // "timeout" on two in three (more than COUNT_EXACT_UP_TO), "gave-up" on one in three.
  tags: i % 3 === 0 ? "" : i % 3 === 1 ? "gave-up timeout" : "timeout",
  turns: [{ index: 0, actor: "model", action: "ls", observation: i % 2 ? "common words" : "other words", ok: true }],
}));
const count = (pred: (e: BulkEpisode) => boolean) => eps.filter(pred).length;

describe.each(storeEngines())("list counts on %s", (engine) => {
  useTempStore("counts", engine);
  beforeAll(async () => {
    for (let i = 0; i < N; i += 5000) await insertEpisodesBulk({ episodes: eps.slice(i, i + 5000) });
  }, 300_000);

  it("estimates a total past COUNT_EXACT_UP_TO (and says so), close to the true count; the rows are those of the exact list", async () => {
    const bash = count((e) => e.environment === "bash");
    expect(bash).toBeGreaterThan(COUNT_EXACT_UP_TO);
    const est = await listViewerEpisodes({ filters: { environment: ["bash"] }, sort: "reward" });
    expect(est.totalExact).toBe(false);
    expect(Math.abs(est.total - bash) / bash).toBeLessThan(0.1);
    expect(est.total).toBeGreaterThan(COUNT_EXACT_UP_TO);
    const exact = await listViewerEpisodes({ filters: { environment: ["bash"] }, sort: "reward", exactCount: true });
    expect(exact).toMatchObject({ total: bash, totalExact: true });
    expect(est.rows.map((r) => r.id)).toEqual(exact.rows.map((r) => r.id));
    // No filter at all: every episode, estimated; exact on request.
    const all = await listEpisodes({});
    expect(all.totalExact).toBe(false);
    expect(Math.abs(all.total - N) / N).toBeLessThan(0.1);
    expect(await listEpisodes({ exactCount: true })).toMatchObject({ total: N, totalExact: true });
  });

  it("estimates a tag filter's total past COUNT_EXACT_UP_TO and counts it exactly on request; a rare tag exactly", async () => {
    const timeout = count((e) => (e.tags ?? "").split(" ").includes("timeout"));
    expect(timeout).toBeGreaterThan(COUNT_EXACT_UP_TO);
    const est = await listViewerEpisodes({ filters: { tag: "timeout" }, sort: "reward" });
    expect(est.totalExact).toBe(false);
    expect(Math.abs(est.total - timeout) / timeout).toBeLessThan(0.1);
    const exact = await listViewerEpisodes({ filters: { tag: "timeout" }, sort: "reward", exactCount: true });
    expect(exact).toMatchObject({ total: timeout, totalExact: true });
    expect(est.rows.map((r) => r.id)).toEqual(exact.rows.map((r) => r.id));
    expect(exact.rows.every((r) => r.tags.includes("timeout"))).toBe(true);
    // A word of the list, never a part of one: "gave" is no tag.
    expect(await listViewerEpisodes({ filters: { tag: "gave" } })).toMatchObject({ total: 0, totalExact: true });
    const rare = await listViewerEpisodes({ filters: { tag: "gave-up", model: ["rare-model"] } });
    expect(rare).toMatchObject({ total: count((e) => e.tags === "gave-up timeout" && e.model === "rare-model"), totalExact: true });
  });

  it("walks an index for every sort the list offers, both ways: no page sorts the matching episodes", async () => {
    const plans: string[] = [];
    // At this test's size PostgreSQL rightly prefers a sort of every row to a walk with random
    // reads; what is asked is whether an index gives the order, so sorting is priced out (in a
    // transaction of its own: the setting ends with it).
    const planAll = async (sql: Sql) => {
      if (sql.dialect.name === "postgresql") await sql.run(`SELECT set_config('enable_sort', 'off', true)`);
      for (const key of Object.values(LIST_SORTS)) {
        const spec = EPISODE_SORTS[key];
        for (const dir of ["ASC", "DESC"]) {
          // The page's query as readEpisodePage issues it (a nullable key: its keyed part).
          const q = `SELECT e."id" FROM "Episode" e WHERE ${spec.nullable ? `${spec.expr} IS NOT NULL` : "1 = 1"} ORDER BY ${spec.expr} ${dir}, e."id" ${dir} LIMIT 50`;
          const plan =
            sql.dialect.name === "sqlite"
              ? (await sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${q}`)).map((r) => r.detail).join("; ")
              : (await sql.all<{ "QUERY PLAN": string }>(`EXPLAIN ${q}`)).map((r) => r["QUERY PLAN"]).join("; ");
          if (/TEMP B-TREE|Sort\b/.test(plan)) plans.push(`${key} ${dir}: ${plan}`);
        }
      }
    };
    const store = config().store;
    if (store.kind === "postgresql") await pgTransaction(store.url, planAll);
    else await withSql(planAll);
    expect(plans).toEqual([]);
  });

  it("sorts a nullable key with NULLs last both ways, across the page where the keyed episodes end", async () => {
    const order = (dir: 1 | -1) =>
      eps
        .map((e, i) => ({ d: e.durationMs ?? null, i }))
        .sort((a, b) => (a.d === null ? 1 : 0) - (b.d === null ? 1 : 0) || (a.d !== null && b.d !== null ? dir * (a.d - b.d) : 0) || dir * (a.i - b.i))
        .map(({ i }) => `task ${i}`);
    const keyed = count((e) => e.durationMs != null);
    for (const [dir, sign] of [
      ["asc", 1],
      ["desc", -1],
    ] as const) {
      const want = order(sign);
      // The page holding the last keyed episodes and the first unkeyed ones, then one of unkeyed only.
      const boundary = Math.floor(keyed / 50) + 1;
      for (const page of [1, boundary, boundary + 3]) {
        const got = await listEpisodes({ sort: { key: "durationMs", dir }, page, pageSize: 50, exactCount: true });
        expect(
          got.rows.map((r) => r.query),
          `${dir} page ${page}`,
        ).toEqual(want.slice((page - 1) * 50, page * 50));
      }
    }
  });

  it("counts exactly up to COUNT_EXACT_UP_TO, with filters and with a many-hit search", async () => {
    const rare = await listViewerEpisodes({ filters: { model: ["rare-model"], environment: ["sql"] } });
    expect(rare).toMatchObject({ total: count((e) => e.model === "rare-model" && e.environment === "sql"), totalExact: true });
    // A search with many hits and a filter (driven from the sort order): the same rule.
    const hits = await listViewerEpisodes({ filters: { search: "common", model: ["rare-model"] } });
    expect(hits).toMatchObject({ total: count((e) => e.turns[0]!.observation === "common words" && e.model === "rare-model"), totalExact: true });
    const many = await listViewerEpisodes({ filters: { search: "words", environment: ["sql"] } });
    const manyWant = count((e) => e.environment === "sql");
    expect(many.totalExact).toBe(false);
    expect(Math.abs(many.total - manyWant) / manyWant).toBeLessThan(0.1);
  });

  it("lists the filter pickers' values as DISTINCT would (each column walked value to value through its index)", async () => {
    const f = await listEpisodeFacets();
    expect(f.environment).toEqual(["bash", "sql"]);
    expect(f.model).toEqual(["m", "rare-model"]);
    expect(f.dataset).toEqual(["d"]);
    expect(f.annotator).toEqual([]);
    expect(f.hardness).toEqual([]);
    expect(f.status).toEqual(["submitted"]);
  });

  it("serves a page past an estimate's end as empty, and a deep page within it", async () => {
    const deep = await listViewerEpisodes({ filters: { environment: ["bash"] }, page: 300 });
    expect(deep.totalExact).toBe(false);
    expect(deep.rows).toHaveLength(50);
    const past = await listViewerEpisodes({ filters: { environment: ["bash"] }, page: 1000 });
    expect(past.rows).toEqual([]);
  });
});
