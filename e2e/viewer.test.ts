import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { PlayPage } from "./pages/play-page";
import { ReplayPage } from "./pages/replay-page";
import { ROOT } from "@/lib/testing/studio-server";

const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");
const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
const SHARED = process.env.IC_INTERCODE_DIR ?? path.resolve(ROOT, "../shared/intercode");
const SQL_LOG = path.join(SHARED, "results-sample/sql/ic_sql_multiturn_human_10_turns.json");

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // The imported episodes' tasks (spider-dev) must be known to the server: fetch them from the shared copy once.
  try {
    loadDataset("spider-dev");
  } catch {
    const { fetchIntercode } = await import("@/lib/datasets/fetch");
    await fetchIntercode({ from: SHARED });
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

function row<T>(sql: string, ...args: unknown[]): T {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).get(...args) as T;
  } finally {
    db.close();
  }
}

describe("viewer", () => {
  it("imports an InterCode log, replays an episode beside gold, tags a turn, branches from turn 2 into the playground and compares", async () => {
    const page = await browser.browser.newPage();
    const viewer = new ReplayPage(page, baseUrl);
    const play = new PlayPage(page, baseUrl);

    // Import the human SQL log through the list page.
    await viewer.openList();
    const report = await viewer.importFiles([SQL_LOG], "spider-dev");
    // Added here, or already there when another file imported the same log first (without the
    // dataset flag, which only repeats what the log implies): either way it is stored once.
    expect(report).toMatch(/15 added|0 added, 15 already there/);
    await viewer.openList("?dataset=spider-dev&sort=task&dir=asc");
    expect(await page.textContent('[data-testid="total"]')).toMatch(/^15 episodes/);
    // Pick an episode with at least three turns.
    const ids = await viewer.rowIds();
    const parentId = ids.find((id) => row<{ n: number }>(`SELECT "turnCount" AS n FROM "Episode" WHERE "id" = ?`, id).n >= 3)!;
    expect(parentId).toBeTruthy();
    const parentTurns = (() => {
      const db = new Database(dbPath, { readonly: true });
      try {
        return db.prepare(`SELECT "action", "observation" FROM "Turn" WHERE "episodeId" = ? ORDER BY "index"`).all(parentId) as {
          action: string;
          observation: string;
        }[];
      } finally {
        db.close();
      }
    })();

    // Step through it with keys and buttons.
    await viewer.openEpisode(parentId);
    expect(await viewer.position()).toMatch(/^turn 1 \//);
    await viewer.press("j");
    expect(await viewer.position()).toMatch(/^turn 2 \//);
    expect((await viewer.observation()).replace(/\s+/g, "")).toContain(parentTurns[1].observation.replace(/\s+/g, "").slice(0, 40));
    await viewer.press("k");
    expect(await viewer.position()).toMatch(/^turn 1 \//);
    await page.click('[data-testid="next"]');
    expect(await viewer.position()).toMatch(/^turn 2 \//);

    // Gold beside it: the gold query and its output, run in a fresh sandbox.
    const gold = row<{ gold: string }>(`SELECT "gold" FROM "Episode" WHERE "id" = ?`, parentId).gold;
    expect((await viewer.goldSource()).replace(/\s+/g, " ")).toContain(gold.replace(/\s+/g, " ").slice(0, 30));
    expect((await viewer.goldOutput()).length).toBeGreaterThan(0);
    // The recorded gold output shows at once; the fresh-sandbox run lands in the gold cache.
    await expect
      .poll(() => row<{ n: number }>(`SELECT COUNT(*) AS n FROM "GoldCache" WHERE "variant" = ''`).n, { timeout: 90_000, interval: 500 })
      .toBeGreaterThanOrEqual(1);
    await page.waitForSelector('[data-testid="gold-panel"]:has-text("fresh sandbox"), [data-testid="gold-panel"]:has-text("cached")', { timeout: 30_000 });

    // Tag turn 2.
    await viewer.tagCurrentTurn("misread-task");
    const tagRow = row<{ turnIndex: number; author: string; status: string }>(
      `SELECT "turnIndex", "author", "status" FROM "Annotation" WHERE "episodeId" = ? AND "tag" = 'misread-task'`,
      parentId,
    );
    expect(tagRow).toEqual({ turnIndex: 1, author: "anonymous", status: "accepted" });
    await viewer.openList("?tag=misread-task");
    expect(await viewer.rowIds()).toEqual([parentId]);
    await page.screenshot({ path: path.join(ARTIFACTS, "viewer-list.png") });

    // Branch from turn 2: the playground opens on a new episode with the first two actions replayed.
    await viewer.openEpisode(parentId);
    await viewer.press("j");
    expect(await viewer.position()).toMatch(/^turn 2 \//);
    await viewer.branchHere();
    await page.screenshot({ path: path.join(ARTIFACTS, "viewer-branch.png") });
    await play.waitReady();
    const childId = play.episodeId();
    expect(childId).not.toBe(parentId);
    await play.waitTurns(2, 90_000);
    await play.typeInConsole(gold);
    await play.waitTurns(3, 90_000);
    await play.typeInConsole("submit");
    expect(await play.reward()).toBe(1);
    const child = row<{ parentEpisodeId: string; branchTurn: number; status: string; turnCount: number }>(
      `SELECT "parentEpisodeId", "branchTurn", "status", "turnCount" FROM "Episode" WHERE "id" = ?`,
      childId,
    );
    expect(child).toEqual({ parentEpisodeId: parentId, branchTurn: 2, status: "submitted", turnCount: 4 });

    // Lineage on both.
    await viewer.openEpisode(childId);
    expect(await page.textContent('[data-testid="lineage"]')).toMatch(/branched at turn 2/);
    await viewer.openEpisode(parentId);
    expect(await page.textContent('[data-testid="lineage"]')).toMatch(/from turn 2/);

    // Compare the two side by side.
    await page.goto(`${baseUrl}/compare?ids=${parentId},${childId}`);
    await page.waitForSelector('[data-testid="compare"]');
    expect(await page.locator('[data-testid="compare-column"]').count()).toBe(2);
    expect(await page.locator('[data-testid="compare-row"]').count()).toBe(Math.max(parentTurns.length, 4));
    await page.waitForSelector('[data-testid="reward-curve"] svg');
    await page.screenshot({ path: path.join(ARTIFACTS, "viewer-compare.png") });
    await page.close();
  }, 360_000);

  it("serves the aggregates and their CSV for the filtered set", async () => {
    const res = await fetch(`${baseUrl}/api/stats?dataset=spider-dev&group=actor&csv=reward`);
    expect(res.status).toBe(200);
    const csv = await res.text();
    expect(csv.split("\r\n")[0]).toBe("bin,episodes");
    const counted = csv
      .trim()
      .split("\r\n")
      .slice(1)
      .reduce((n, l) => n + Number(l.split(",")[1]), 0);
    expect(counted).toBeGreaterThanOrEqual(15);
    const bad = await fetch(`${baseUrl}/api/stats?group=nonsense`);
    expect(bad.status).toBe(400);
  });
});
