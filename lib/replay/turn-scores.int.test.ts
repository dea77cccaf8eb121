import { describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { appendTurn, createEpisode, finishEpisode } from "@/lib/db/episodes";
import { useTempStore } from "@/lib/testing/store";
import { listTurnReplaysByEpisode } from "@/lib/db/turn-replays";
import { getReplayHeaderById } from "@/lib/db/viewer-queries";
import { getTurnScores } from "./turn-scores";

useTempStore("turn-scores");

describe("getTurnScores (SQL, embedded engine, real store)", () => {
  it("replays an episode without per-turn rewards once, caches it, and marks the turns whose output is gold's", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const gold = String(task.gold);
    const ep = await createEpisode({
      environment: "sql",
      dataset: "demo-sql",
      taskId: task.id,
      query: task.query,
      gold,
      playerKind: "human",
      turnLimit: 10,
      feedback: "none",
    });
    const turns = [
      { action: "SELECT name, docks AS n FROM stations ORDER BY station_id LIMIT 2", observation: "" },
      { action: gold, observation: "" },
      { action: "SELECT count(*) FROM nope", observation: "", ok: false },
      { action: "submit", observation: "", reward: 0 },
    ];
    // What the playground stores: the outputs of a live run.
    const { createEnvironment } = await import("@/lib/env");
    const env = await createEnvironment("sql", {});
    await env.reset(task);
    turns[0].observation = (await env.step(turns[0].action)).observation;
    turns[1].observation = (await env.step(turns[1].action)).observation;
    turns[2].observation = (await env.step(turns[2].action)).observation;
    expect(turns[2].observation).toMatch(/^Error executing query: .*nope/);
    await env.close();
    for (const [index, t] of turns.entries()) {
      await appendTurn({
        episodeId: ep.id,
        turn: { index, actor: "human", source: "terminal", action: t.action, observation: t.observation, ok: t.ok ?? true, reward: t.reward ?? null },
      });
    }
    await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 0, success: false } });

    const first = await getTurnScores({ header: (await getReplayHeaderById({ id: ep.id, size: 0 }))! });
    expect(first.error).toBeUndefined();
    expect(first.source).toBe("replayed");
    expect(first.turns.map((t) => [t.reward, t.rewardFrom])).toEqual([
      [0, "replay"],
      [1, "replay"],
      [0, "replay"],
      [0, "recorded"],
    ]);
    expect(first.turns.map((t) => t.matchesGold)).toEqual([false, true, false, false]);
    expect(first.turns[0].columns).toEqual(["name", "n"]);
    expect(first.turns[1].columns).toEqual(["count(*)"]);
    expect(first.turns.slice(0, 3).map((t) => t.replayAgrees)).toEqual([true, true, true]);
    expect((await listTurnReplaysByEpisode({ episodeId: ep.id })).map((r) => r.reward)).toEqual([0, 1, 0, 0]);

    const again = await getTurnScores({ header: (await getReplayHeaderById({ id: ep.id, size: 0 }))! });
    expect(again.source).toBe("cached");
    expect(again.turns).toEqual(first.turns);

    // A page of the cached replay: only its turns, and the replayed rewards aggregated for the curve.
    const page = await getTurnScores({ header: (await getReplayHeaderById({ id: ep.id, size: 0 }))!, from: 1, limit: 2, curve: true });
    expect(page.source).toBe("cached");
    expect(page.from).toBe(1);
    expect(page.turns).toEqual(first.turns.slice(1, 3));
    expect(page.curve).toEqual({ bucket: 1, points: [0, 1, 0, 0].map((reward, turn) => ({ turn, reward })) });
  }, 120_000);

  it("replays a SQL episode that recorded every reward once for the engine's column names, keeping the recorded rewards", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const ep = await createEpisode({
      environment: "sql",
      dataset: "demo-sql",
      taskId: task.id,
      query: task.query,
      playerKind: "human",
      turnLimit: 10,
      feedback: "reward",
    });
    await appendTurn({
      episodeId: ep.id,
      turn: { index: 0, actor: "human", action: "SELECT district AS d FROM stations LIMIT 1", observation: "('x',)", ok: true, reward: 0.25 },
    });
    const s = await getTurnScores({ header: (await getReplayHeaderById({ id: ep.id, size: 0 }))! });
    expect(s.source).toBe("recorded");
    expect(s.turns).toEqual([{ index: 0, reward: 0.25, rewardFrom: "recorded", matchesGold: false, replayAgrees: false, columns: ["d"] }]);
  }, 60_000);

  it("ReAct scores only at submit: the 0 its log holds before the submit is drawn as a would-be reward, not as a recorded one", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const gold = String(task.gold);
    const ep = await createEpisode({
      environment: "sql",
      dataset: "demo-sql",
      taskId: task.id,
      query: task.query,
      gold,
      playerKind: "model",
      model: "gpt-4",
      policy: "react",
      mode: "import",
      turnLimit: 10,
      feedback: "none",
    });
    // As InterCode's ReAct logs hold it: gold's query run before the submit, reward 0 (never scored).
    await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "model", action: `execute[${gold}]`, observation: "", ok: true, reward: 0 } });
    await appendTurn({ episodeId: ep.id, turn: { index: 1, actor: "model", action: "submit", observation: "", ok: true, reward: 1 } });
    await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 1, success: true } });
    const s = await getTurnScores({ header: (await getReplayHeaderById({ id: ep.id, size: 0 }))! });
    expect(s.error).toBeUndefined();
    expect(s.turns.map((t) => [t.reward, t.rewardFrom])).toEqual([
      [1, "replay"],
      [1, "recorded"],
    ]);
  }, 60_000);
});
