import { describe, expect, it } from "vitest";
import { createEpisode, finishEpisode } from "@/lib/db/episodes";
import { initStore } from "@/lib/db/startup";
import { runPython } from "@/lib/reward/testing/python-oracle";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { compareFilteredEpisodes } from "./compare-filters";

/** One finished (or running) sql episode of `model` on `taskId`. */
async function episode(model: string, taskId: string, outcome: "solved" | "failed" | "error" | "running", { dataset = "spider", hardness = "easy" } = {}) {
  const ep = await createEpisode({
    environment: "sql",
    dataset,
    taskId,
    query: `task ${taskId}`,
    playerKind: "model",
    model,
    policy: "try-again",
    turnLimit: 10,
    hardness,
  });
  if (outcome === "solved") await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 1 } });
  if (outcome === "failed") await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 0.2 } });
  if (outcome === "error") await finishEpisode({ episodeId: ep.id, outcome: { status: "error", reason: "provider answered HTTP 500" } });
  return ep.id;
}

describe.each(storeEngines())("compareFilteredEpisodes on %s", (engine) => {
  useTempStore("compare-filters", engine);

  it("pairs two filters' finished episodes by task (latest episode, same dataset) and tests them overall and per hardness", async () => {
    await initStore();
    // easy: t1 both, t2 A only, t3 A only, t4 neither; hard: t5 B only, t6 A only, t7 both, t8 neither (B errored).
    const plan: Array<[string, "easy" | "hard", "solved" | "failed", "solved" | "failed" | "error"]> = [
      ["t1", "easy", "solved", "solved"],
      ["t2", "easy", "solved", "failed"],
      ["t3", "easy", "solved", "failed"],
      ["t4", "easy", "failed", "failed"],
      ["t5", "hard", "failed", "solved"],
      ["t6", "hard", "solved", "failed"],
      ["t7", "hard", "solved", "solved"],
      ["t8", "hard", "failed", "error"],
    ];
    // An older failed attempt of t2 by A: the later, solved one counts.
    await episode("model-a", "t2", "failed");
    for (const [t, hardness, a, b] of plan) {
      await episode("model-a", t, a, { hardness });
      await episode("model-b", t, b, { hardness });
    }
    // Not paired: A's running episode of t9, B's t10 alone, and A's t1 of another dataset (a task is its environment, dataset and id).
    await episode("model-a", "t9", "running");
    await episode("model-b", "t9", "solved");
    await episode("model-b", "t10", "solved");
    await episode("model-a", "t1", "solved", { dataset: "other" });

    const r = await compareFilteredEpisodes({ a: { model: ["model-a"] }, b: { model: ["model-b"] } });
    expect({ both: r.both, onlyA: r.onlyA, onlyB: r.onlyB, neither: r.neither, tasks: r.tasks, unpaired: r.unpaired }).toEqual({
      both: 2,
      onlyA: 3,
      onlyB: 1,
      neither: 2,
      tasks: 8,
      unpaired: 3,
    });
    expect(r.episodes).toEqual({ a: 10, b: 10 });
    const [p, pEasy] = runPython<number[]>("from scipy.stats import binomtest\nresult = [binomtest(k, n, 0.5).pvalue for k, n in data]", [
      [3, 4],
      [2, 2],
    ]);
    expect(r.mcnemarP).toBeCloseTo(p!, 12);
    expect(r.diffCI).toMatchObject({ diff: 2 / 8, level: 0.95, resamples: 10_000, seed: 1 });
    expect(r.diffCI!.low).toBeLessThanOrEqual(0.25);
    expect(r.diffCI!.high).toBeGreaterThanOrEqual(0.25);
    expect(r.groups.map((g) => [g.group, g.both, g.onlyA, g.onlyB, g.neither])).toEqual([
      ["easy", 1, 2, 0, 1],
      ["hard", 1, 1, 1, 1],
    ]);
    expect(r.groups[0]!.mcnemarP).toBeCloseTo(pEasy!, 12);
    expect(r.groups[1]!.mcnemarP).toBe(1);
    // The same episodes and seed give the same interval; another seed may not.
    expect((await compareFilteredEpisodes({ a: { model: ["model-a"] }, b: { model: ["model-b"] } })).diffCI).toEqual(r.diffCI);
  });
});
