import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { SEARCH_DRIVE_LIMIT } from "./episode-filters";
import { appendTurn, createEpisode, deleteEpisodeById, listEpisodes, listViewerEpisodes } from "./episodes";
import { storeEngines, useTempStore } from "@/lib/testing/store";

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
