import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { appendTurn, createEpisode, finishEpisode, type NewTurnInput } from "@/lib/db/episodes";
import { createEnvironment } from "@/lib/env";
import { launchBrowser } from "@/lib/testing/browser";
import { ComparePage } from "./pages/compare-page";
import { ReplayPage } from "./pages/replay-page";
import { ROOT } from "@/lib/testing/studio-server";

const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");
const ARTIFACTS = path.join(ROOT, "e2e/artifacts");

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Awaited<ReturnType<typeof browser.browser.newPage>>;
let viewer: ReplayPage;

/** Plays `actions` in a real environment and stores them as an episode of the server's store, turn by turn. */
async function storePlayed({
  task,
  actions,
  playerKind = "human",
  model,
  actorOf = () => "human",
  sourceOf = () => "terminal",
  feedback = "none",
}: {
  task: Task;
  actions: string[];
  playerKind?: "human" | "model";
  model?: string;
  actorOf?: (i: number) => "human" | "model";
  sourceOf?: (i: number) => string;
  feedback?: "none" | "reward";
}): Promise<string> {
  const ep = await createEpisode({
    environment: task.env,
    dataset: task.dataset,
    taskId: task.id,
    query: task.query,
    playerKind,
    model,
    turnLimit: 10,
    feedback,
    backend: "local",
  });
  const env = await createEnvironment(task.env, { backend: "local" });
  try {
    await env.reset(task);
    let outcome: Parameters<typeof finishEpisode>[0]["outcome"] | null = null;
    for (const [index, action] of actions.entries()) {
      const r = await env.step(action);
      const turn: NewTurnInput = {
        index,
        actor: actorOf(index),
        source: sourceOf(index),
        action,
        observation: r.observation,
        ok: r.ok,
        reward: r.submitted ? r.submitted.reward : null,
      };
      await appendTurn({ episodeId: ep.id, turn });
      if (r.submitted)
        outcome = {
          status: "submitted",
          reward: r.submitted.reward,
          breakdown: r.submitted.breakdown,
          success: r.submitted.reward === 1,
          goldObservation: r.submitted.goldObservation,
          agentObservation: r.submitted.agentObservation,
        };
    }
    if (outcome) await finishEpisode({ episodeId: ep.id, outcome });
  } finally {
    await env.close();
  }
  return ep.id;
}

function count(sql: string, ...args: unknown[]): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(sql).get(...args) as { n: number }).n;
  } finally {
    db.close();
  }
}

const sqlTask = () => loadDataset("demo-sql").find((t) => t.id === "bike-01")!;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // This process writes the seeded episodes into the server's own store.
  process.env.IC_DB = dbPath;
  browser = await launchBrowser();
  page = await browser.browser.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  viewer = new ReplayPage(page, baseUrl);
});
afterAll(async () => {
  await browser?.close();
});

describe("replay", () => {
  let sqlId = "";

  it("scores every turn of an episode that recorded no rewards, keeps the turn in the URL, steps with Home/End, and compares each turn with gold", async () => {
    const task = sqlTask();
    sqlId = await storePlayed({
      task,
      actions: ["SELECT name, docks AS n FROM stations ORDER BY station_id LIMIT 2", String(task.gold), "SELECT count(*) FROM stationz", "submit"],
    });
    expect(count(`SELECT COUNT(*) AS n FROM "Turn" WHERE "episodeId" = ? AND "reward" IS NOT NULL`, sqlId)).toBe(1);

    await viewer.openEpisode(sqlId, "?turn=2");
    expect(await viewer.position()).toMatch(/^turn 2 \/ 4/);
    expect(await viewer.currentSteps()).toEqual([1]);

    // The would-be rewards, replayed on the server and cached in the store.
    await viewer.waitScores();
    expect(await viewer.turnRewards()).toEqual(["would be 0.00", "would be 1.00", "would be 0.00", "reward 0.00"]);
    expect(count(`SELECT COUNT(*) AS n FROM "TurnReplay" WHERE "episodeId" = ?`, sqlId)).toBe(4);
    await page.waitForSelector('[data-testid="reward-curve"] svg');

    // Turn 2 printed gold's output: it says so in the timeline and beside gold.
    expect(await viewer.turnsMatchingGold()).toEqual([1]);
    expect(await page.textContent('[data-testid="turn-equals-gold"]')).toMatch(/Turn 2's output equals gold's/);

    // Home, End, j: the URL and aria-current follow.
    await viewer.press("End");
    expect(await viewer.position()).toMatch(/^turn 4 \/ 4/);
    expect(await viewer.urlTurn(4)).toBe("4");
    expect(await viewer.currentSteps()).toEqual([3]);
    await viewer.press("Home");
    expect(await viewer.urlTurn(1)).toBe("1");
    expect(await page.textContent('[data-testid="turn-vs-gold"] h3')).toMatch(/Turn 1's output against gold's/);
    expect(await page.locator('[data-testid="turn-equals-gold"]').count()).toBe(0);

    // The SQL result as a table with the engine's column names, and the stored text on request.
    expect(await viewer.sqlTable()).toEqual({ head: ["name", "n"], rows: expect.arrayContaining([expect.any(Array)]) });
    expect((await viewer.sqlTable()).rows).toHaveLength(2);
    expect(await viewer.observation()).toMatch(/^\('.*', \d+\)\('.*', \d+\)$/);
    await page.click('[data-testid="turn"][data-current="1"] [data-testid="sql-view-table"]');
    await viewer.press("j");
    expect(await viewer.urlTurn(2)).toBe("2");
    expect((await viewer.sqlTable()).head).toEqual(["count(*)"]);

    // Who played each turn.
    expect(await viewer.turnActors()).toEqual(["human · console", "human · console", "human · console", "human · console"]);

    // Suggested tags in SQL's words, once for the turn.
    const suggested = await viewer.suggestions();
    expect(suggested.filter((s) => s === "no-such-table@turn 3")).toHaveLength(1);
    expect(suggested.some((s) => s.startsWith("no-such-file") || s === "query-error@turn 3")).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, "after-replay.png") });

    // A second visit reads the cache.
    await viewer.openEpisode(sqlId, "?turn=3");
    await viewer.waitScores();
    expect(await page.textContent('[data-testid="scores-status"]')).toMatch(/cached/);
    expect(await viewer.currentSteps()).toEqual([2]);

    // The episode's breakdown in words, as the playground shows it, the raw fields one click away.
    const part = (await page.textContent('[data-testid="breakdown"] [data-testid="breakdown-part"][data-part="overlap"]')) ?? "";
    expect(part).toMatch(/^rows \d\.\d\d — .*intersection over union/);
    expect(await page.locator('[data-testid="breakdown"] details summary').textContent()).toBe("raw fields");
  }, 180_000);

  it("shows a Python episode's tests verbatim, pass or fail each", async () => {
    const task = loadDataset("demo-python").find((t) => t.id === "reverse-words")!;
    // Splitting on single spaces keeps the empty words: the test with runs of spaces fails.
    const id = await storePlayed({
      task,
      actions: ["def reverse_words(s):\n    return ' '.join(reversed(s.split(' ')))", "submit reverse_words"],
      feedback: "reward",
    });
    await viewer.openEpisode(id);
    const rows = page.locator('[data-testid="python-test"]');
    await rows.first().waitFor();
    const tests = await rows.evaluateAll((els) =>
      els.map((e) => ({
        outcome: e.getAttribute("data-outcome"),
        text: e.querySelector('[data-testid="python-test-text"]')!.textContent,
        ws: getComputedStyle(e.querySelector('[data-testid="python-test-text"]')!).whiteSpace,
      })),
    );
    expect(tests).toEqual(task.env === "python" ? task.tests.map((text, i) => ({ outcome: i === 2 ? "fail" : "pass", text, ws: "pre" })) : []);
    expect(await page.textContent('[data-testid="python-tests"]')).toMatch(/2 of 3 tests passed/);
  }, 120_000);

  it("marks a person's take-over in a model episode, and /compare without ids picks episodes from the store", async () => {
    const task = sqlTask();
    const modelId = await storePlayed({
      task,
      actions: ["SELECT 1", "SELECT count(*) FROM stations WHERE docks > 100000", "submit"],
      playerKind: "model",
      model: "scripted-e2e",
      actorOf: (i) => (i === 1 ? "human" : "model"),
      sourceOf: (i) => (i === 1 ? "editor" : "model"),
    });
    await viewer.openEpisode(modelId);
    expect(await viewer.turnActors()).toEqual(["model", "human · editor · taken over by a person", "model"]);

    const compare = new ComparePage(page, baseUrl);
    await compare.open();
    expect(await page.locator('[data-testid="compare-picker"]').count()).toBe(1);
    await compare.search("stationz");
    expect(await compare.candidates()).toEqual([sqlId]);
    await compare.open();
    await compare.compare([sqlId, modelId]);
    expect((await compare.columns()).sort()).toEqual([sqlId, modelId].sort());
    const actors = await viewer.turnActors('[data-testid="compare-row"] [data-testid="turn-actor"]');
    expect(actors.filter((a) => a.includes("taken over by a person"))).toEqual(["human · editor · taken over by a person"]);
    // The SQL episode's would-be rewards, cached by its replay, label its compared turns too.
    expect(await page.locator('[data-testid="compare"] :text("would be 1.00")').count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, "after-compare.png") });
  }, 120_000);

  it("lists each episode's status and filters on it through the URL", async () => {
    const task = sqlTask();
    const abandoned = await createEpisode({
      environment: "sql",
      dataset: task.dataset,
      taskId: task.id,
      query: task.query,
      playerKind: "human",
      turnLimit: 10,
    });
    await finishEpisode({ episodeId: abandoned.id, outcome: { status: "abandoned", reason: "e2e" } });
    const failed = await createEpisode({ environment: "sql", dataset: task.dataset, taskId: task.id, query: task.query, playerKind: "human", turnLimit: 10 });
    await finishEpisode({ episodeId: failed.id, outcome: { status: "error", reason: "e2e: the sandbox died" } });

    await viewer.openList(`?task=${task.id}&sort=date&dir=desc`);
    const ids = await viewer.rowIds();
    const statuses = await viewer.rowStatuses();
    expect(statuses[ids.indexOf(abandoned.id)]).toBe("abandoned");
    expect(statuses[ids.indexOf(failed.id)]).toBe("error");
    expect(statuses[ids.indexOf(sqlId)]).toBe("submitted");

    await Promise.all([page.waitForURL(/[?&]status=error/), page.selectOption('[data-testid="filter-status"]', "error")]);
    await page.waitForSelector(`[data-testid="episode-row"][data-id="${failed.id}"]`);
    expect(await viewer.rowIds()).toContain(failed.id);
    expect(new Set(await viewer.rowStatuses())).toEqual(new Set(["error"]));
    expect(new URL(page.url()).searchParams.get("task")).toBe(task.id);
    await viewer.openList(`?task=${task.id}&status=abandoned`);
    expect(await viewer.rowIds()).toContain(abandoned.id);
    expect(new Set(await viewer.rowStatuses())).toEqual(new Set(["abandoned"]));
    expect(await page.inputValue('[data-testid="filter-status"]')).toBe("abandoned");
    await page.screenshot({ path: path.join(ARTIFACTS, "after-episodes.png") });
  }, 60_000);
});
