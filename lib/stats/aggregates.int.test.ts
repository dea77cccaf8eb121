import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode } from "@/lib/db/bulk-import";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { chartCsv, chartKs, computeViewerStats, MAX_CHART_GROUPS, MAX_GROUPS_SHOWN, MAX_K_POINTS } from "./aggregates";

// 300 tasks (groups when grouped by task), turn limits up to 2,000 (the long imported episode of
// issue 26, whose success-within-k curve made the stats page a megabyte), a few episodes solved late.
const TASKS = 300;
const eps: BulkEpisode[] = Array.from({ length: 1200 }, (_, i) => {
  const long = i % 100 === 0;
  const solvedAt = i % 4 === 0 ? (long ? 1500 + (i % 7) : 1 + (i % 9)) : null;
  return {
    sourceKey: `agg-${i}`,
    environment: i % 2 ? "bash" : "sql",
    dataset: "d",
    taskId: String(i % TASKS),
    query: `task ${i}`,
    playerKind: "model",
    model: `m${i % 20}`,
    turnLimit: long ? 2000 : 10,
    status: "submitted",
    reward: solvedAt ? 1 : (i % 10) / 10,
    success: solvedAt !== null,
    solvedAtTurn: solvedAt,
    startedAt: 1_700_000_000_000 + i * 1000,
    turns: [{ index: 0, actor: "model", action: "ls", observation: "x", ok: i % 3 !== 0 }],
  };
});

describe.each(storeEngines())("stats aggregates on %s", (engine) => {
  useTempStore("aggregates", engine);
  beforeAll(async () => {
    await insertEpisodesBulk({ episodes: eps });
  }, 120_000);

  it("returns aggregates of bounded size whatever the store holds, not rows", async () => {
    const stats = await computeViewerStats({ filters: {}, groupBy: ["task"] });
    expect(stats.groupsTotal).toBe(TASKS);
    expect(stats.success).toHaveLength(MAX_GROUPS_SHOWN);
    expect(stats.groups).toHaveLength(MAX_CHART_GROUPS);
    expect(stats.successAtK.length).toBeLessThanOrEqual(MAX_K_POINTS);
    for (const row of stats.successAtK) expect(Object.keys(row)).toHaveLength(MAX_CHART_GROUPS + 1);
    // The episodes are counted in the store: the histogram holds every one, in ten bins.
    expect(stats.rewardHistogram.reduce((a, b) => a + b.episodes, 0)).toBe(eps.length);
    // What the page and the API ship is a few kilobytes (it was 1 MB with a 2,000-turn limit).
    expect(JSON.stringify(stats).length).toBeLessThan(40_000);
    const byModel = await computeViewerStats({ filters: {}, groupBy: ["model"] });
    expect(JSON.stringify(byModel).length).toBeLessThan(20_000);
    expect(byModel.success.reduce((a, b) => a + b.episodes, 0)).toBe(eps.length);
  });

  it("keeps the curve's steps (the last k and where a group's success changes), and the CSV has every group and k", async () => {
    const stats = await computeViewerStats({ filters: { environment: "sql" }, groupBy: ["env"] });
    const full = await computeViewerStats({ filters: { environment: "sql" }, groupBy: ["env"], full: true });
    expect(full.successAtK).toHaveLength(2000);
    const curve = full.successAtK.map((r) => r.sql!);
    const shown = new Map(stats.successAtK.map((r) => [r.k, r.sql!]));
    expect(shown.get(2000)).toBe(curve[1999]);
    for (let k = 2; k <= 2000; k++) if (curve[k - 1] !== curve[k - 2]) expect(shown.get(k), `k=${k}`).toBe(curve[k - 1]);
    const csv = chartCsv(full, "success-at-k").trim().split("\n");
    expect(csv).toHaveLength(2001);
    const byTask = chartCsv(await computeViewerStats({ filters: {}, groupBy: ["task"], full: true }), "success")
      .trim()
      .split("\n");
    expect(byTask).toHaveLength(TASKS + 1);
  });
});

describe("chartKs", () => {
  it("keeps every k to 50, each step's k - 1 and k, and the last k; thins evenly past the cap", () => {
    const step = Array.from({ length: 2000 }, (_, i) => (i + 1 >= 1500 ? 0.5 : 0.1));
    const ks = chartKs([step], 2000);
    expect(ks.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(ks).toContain(1499);
    expect(ks).toContain(1500);
    expect(ks[ks.length - 1]).toBe(2000);
    const noisy = [Array.from({ length: 5000 }, (_, i) => i / 5000)];
    const thin = chartKs(noisy, 5000);
    expect(thin.length).toBeLessThanOrEqual(MAX_K_POINTS);
    expect(thin[thin.length - 1]).toBe(5000);
  });
});
