import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { createBranchEpisode } from "@/lib/replay/branch";
import { createAnnotation } from "./annotations";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { listViewerEpisodes, listViewerEpisodesByTask } from "./episodes";
import { aggregateViewerEpisodes } from "@/lib/stats/aggregates";
import { getReplayDataById, listEpisodeFacets, listUsedTags } from "./viewer-queries";

const task = loadDataset("demo-python")[0];

function ep(i: number, over: Partial<BulkEpisode> = {}): BulkEpisode {
  return {
    id: `ep-${i}`,
    sourceKey: `test:${i}`,
    environment: i % 2 ? "sql" : "python",
    dataset: i % 2 ? "spider-dev" : task.dataset,
    taskId: i % 2 ? String(i) : task.id,
    taskIndex: i % 2 ? i : task.index,
    query: i % 2 ? `sql question ${i}` : task.query,
    playerKind: i % 3 ? "model" : "human",
    annotator: i % 3 ? null : "ann",
    model: i % 3 ? "gpt-4" : null,
    policy: i % 3 ? "react" : null,
    turnLimit: 10,
    status: "submitted",
    reward: i / 10,
    success: i === 10,
    solvedAtTurn: i === 10 ? 3 : null,
    startedAt: 1_700_000_000_000 + i * 1000,
    durationMs: 100 * i,
    turns: Array.from({ length: 1 + (i % 4) }, (_, k) => ({
      index: k,
      actor: "model",
      action: k === 0 && i === 7 ? "grep zebra /etc" : `print(${k})`,
      observation: k === 1 ? "NameError: boom" : String(k),
      ok: k !== 1,
      reward: Math.min(1, (k + 1) / 4),
    })),
    ...over,
  };
}

describe.each(storeEngines())("viewer queries on %s", (engine) => {
  useTempStore("viewer", engine);
  beforeAll(async () => {
    await insertEpisodesBulk({ episodes: Array.from({ length: 11 }, (_, i) => ep(i)) });
  });

  it("pages, sorts and filters the list, with full-text search", async () => {
    const all = await listViewerEpisodes({ pageSize: 4 });
    expect(all.total).toBe(11);
    expect(all.rows.map((r) => r.id)).toEqual(["ep-10", "ep-9", "ep-8", "ep-7"]);
    expect((await listViewerEpisodes({ pageSize: 4, page: 3 })).rows.map((r) => r.id)).toEqual(["ep-2", "ep-1", "ep-0"]);
    expect((await listViewerEpisodes({ sort: "reward", dir: "asc", pageSize: 2 })).rows.map((r) => r.reward)).toEqual([0, 0.1]);
    expect((await listViewerEpisodes({ filters: { environment: ["sql"], success: false } })).total).toBe(5);
    expect((await listViewerEpisodes({ filters: { search: "zebra" } })).rows.map((r) => r.id)).toEqual(["ep-7"]);
    // invalid actions: turn 1 is invalid, so episodes with 2+ turns (i % 4 >= 1) have one.
    expect((await listViewerEpisodes({ filters: { invalidMin: 1 } })).total).toBe(11 - 3);
    expect((await listViewerEpisodes({ sort: "player", dir: "asc", pageSize: 1 })).rows[0].annotator).toBe("ann");
    expect((await listEpisodeFacets()).environment).toEqual(["python", "sql"]);
    expect((await listViewerEpisodesByTask({ environment: "sql", dataset: "spider-dev", taskId: "3" })).map((r) => r.id)).toEqual(["ep-3"]);
  });

  it("gives the replay data, tags in the list and aggregates", async () => {
    await createAnnotation({ episodeId: "ep-5", turnIndex: 1, kind: "tag", tag: "query-error", author: "ann" });
    await createAnnotation({ episodeId: "ep-5", kind: "tag", tag: "my-new-tag", author: "ann", status: "rejected" });
    const d = (await getReplayDataById({ id: "ep-5" }))!;
    expect(d.turns.map((t) => t.ok)).toEqual([true, false]);
    expect(d.annotations).toHaveLength(2);
    expect(d.episode.tags).toEqual(["query-error"]);
    expect(await getReplayDataById({ id: "nope" })).toBeNull();
    expect((await listViewerEpisodes({ filters: { tag: "query-error" } })).rows.map((r) => r.id)).toEqual(["ep-5"]);
    expect((await listUsedTags()).map((t) => t.tag).sort()).toEqual(["my-new-tag", "query-error"]);
    const a = await aggregateViewerEpisodes({ filters: {} });
    expect(a.rewardHistogram.reduce((n, b) => n + b.episodes, 0)).toBe(11);
    expect(a.rewardHistogram[9].episodes).toBe(2); // 0.9 and 1.0
    const turn2 = a.invalidByTurn.find((t) => t.turn === 2)!;
    expect(turn2).toMatchObject({ invalid: turn2.checked, rate: 1 });
    expect(a.tags).toEqual([{ tag: "query-error", episodes: 1 }]);
  });

  it("branches an episode from turn k with lineage on both sides", async () => {
    const b = await createBranchEpisode({ episodeId: "ep-2", turn: 2, annotator: "bob" });
    expect(b.href).toBe(`/play/python/${encodeURIComponent(`${task.dataset}:${task.id}`)}?episode=${encodeURIComponent(b.id)}`);
    const child = (await getReplayDataById({ id: b.id }))!;
    expect(child.episode).toMatchObject({ parentEpisodeId: "ep-2", branchTurn: 2, status: "running", annotator: "bob" });
    expect(child.turns.map((t) => t.action)).toEqual(["print(0)", "print(1)"]);
    expect(child.parent?.id).toBe("ep-2");
    expect((await getReplayDataById({ id: "ep-2" }))!.children.map((c) => c.id)).toEqual([b.id]);
    await expect(createBranchEpisode({ episodeId: "ep-2", turn: 9, annotator: "bob" })).rejects.toThrow(/0\.\.3/);
  });
});
