import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { COUNT_EXACT_UP_TO } from "./episode-filters";
import { listEpisodes, listViewerEpisodes } from "./episodes";
import { listEpisodeFacets } from "./viewer-queries";
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
