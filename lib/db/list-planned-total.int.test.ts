import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { COUNT_EXACT_UP_TO } from "./episode-filters";
import { listViewerEpisodes } from "./episodes";
import { withSql } from "./sql";
import { storeEngines, useTempStore } from "@/lib/testing/store";

// Past five times COUNT_EXACT_UP_TO, PostgreSQL takes every episode's total, one common word's and
// one column's value's from its planner's statistics instead of counting (episode-filters PLANNED_TOTAL_FROM); SQLite
// counts and samples as below it. Either way the total is an estimate close to the truth and the
// rows are the exact list's; a rare word, and a common word with a filter, are counted as before.
const N = 56_000;
const eps: BulkEpisode[] = Array.from({ length: N }, (_, i) => ({
  sourceKey: `planned-${i}`,
  environment: i % 4 === 0 ? "sql" : "bash",
  dataset: "d",
  taskId: String(i % 50),
  query: `task ${i}`,
  playerKind: "model",
  model: "m",
  turnLimit: 10,
  status: "submitted",
  reward: (i % 10) / 10,
  success: i % 10 === 9,
  startedAt: 1_700_000_000_000 + i * 1000,
  // "everywhere" in every episode; "seldom" in one in a thousand.
  turns: [{ index: 0, actor: "model", action: "ls", observation: i % 1000 === 7 ? "everywhere seldom" : "everywhere", ok: true }],
}));

describe.each(storeEngines())("a total past five times the exact limit on %s", (engine) => {
  useTempStore("planned", engine);
  beforeAll(async () => {
    for (let i = 0; i < N; i += 8000) await insertEpisodesBulk({ episodes: eps.slice(i, i + 8000) });
    // The statistics autovacuum would gather in its next minute.
    if (engine === "postgresql") await withSql((sql) => sql.run(`ANALYZE "Episode", "EpisodeText"`));
  }, 300_000);

  it("estimates every episode's total and a common word's, close to the truth, with the exact list's rows", async () => {
    expect(N).toBeGreaterThan(5 * COUNT_EXACT_UP_TO);
    for (const q of [{}, { search: "everywhere" }]) {
      for (const page of [1, 40]) {
        const est = await listViewerEpisodes({ filters: q, sort: "reward", page });
        expect(est.totalExact).toBe(false);
        expect(Math.abs(est.total - N) / N).toBeLessThan(0.1);
        const exact = await listViewerEpisodes({ filters: q, sort: "reward", page, exactCount: true });
        expect(exact).toMatchObject({ total: N, totalExact: true });
        expect(est.rows.map((r) => r.id)).toEqual(exact.rows.map((r) => r.id));
      }
    }
  });

  it("estimates one column's common value close to the truth, with the exact list's rows; counts a rarer one and two columns' values", async () => {
    for (const page of [1, 40]) {
      const est = await listViewerEpisodes({ filters: { model: ["m"] }, sort: "reward", page });
      expect(est.totalExact).toBe(false);
      expect(Math.abs(est.total - N) / N).toBeLessThan(0.1);
      const exact = await listViewerEpisodes({ filters: { model: ["m"] }, sort: "reward", page, exactCount: true });
      expect(exact).toMatchObject({ total: N, totalExact: true });
      expect(est.rows.map((r) => r.id)).toEqual(exact.rows.map((r) => r.id));
    }
    // A quarter of the store: under five times the limit, so counted and sampled, never the planner's.
    const sql = await listViewerEpisodes({ filters: { environment: ["sql"] } });
    expect(sql.totalExact).toBe(false);
    expect(Math.abs(sql.total - N / 4) / (N / 4)).toBeLessThan(0.1);
    // Values of several columns are counted (the planner would multiply their shares as if independent).
    expect(await listViewerEpisodes({ filters: { model: ["m"], taskId: ["7"], environment: ["bash"] } })).toMatchObject({
      total: N / 50,
      totalExact: true,
    });
  });

  it("counts a rare word, and a common word under a filter, as below the limit", async () => {
    expect(await listViewerEpisodes({ filters: { search: "seldom" } })).toMatchObject({ total: N / 1000, totalExact: true });
    const sql = await listViewerEpisodes({ filters: { search: "everywhere", environment: ["sql"] } });
    expect(sql.totalExact).toBe(false);
    expect(Math.abs(sql.total - N / 4) / (N / 4)).toBeLessThan(0.1);
    const page = await listViewerEpisodes({ filters: { search: "everywhere", environment: ["sql"], taskId: ["0"] } });
    // sql (i % 4 = 0) and task 0 (i % 50 = 0): one in a hundred.
    expect(page).toMatchObject({ total: N / 100, totalExact: true });
  });
});
