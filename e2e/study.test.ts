import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { PlayPage } from "./pages/play-page";
import { StudyPage } from "./pages/study-page";
import { readStudyEpisodes, readStudyTasks } from "./store";

const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");

// Human baseline studies end to end: a study made in the form, worked by an annotator in the
// browser, and every episode read back from the store. Every episode opened here is submitted
// or skipped, so no task stays sealed for the other e2e files sharing the server.

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const SQL = loadDataset("demo-sql");
function goldOf(taskId: string): string {
  const t = SQL.find((x) => x.id === taskId);
  if (!t || typeof t.gold !== "string") throw new Error(`demo-sql has no one-gold task ${taskId}`);
  return t.gold;
}

/**
 * Whether the gold solution is on the page in any form the player could read: the result panel,
 * the visible text, or the data the page carries in its scripts (React's payload, JSON-escaped).
 */
async function goldShown(page: Page, gold: string): Promise<boolean> {
  if ((await page.locator('[data-testid="gold"]').count()) > 0) return true;
  const text = await page.evaluate(() => document.body.innerText + Array.from(document.scripts, (s) => s.textContent ?? "").join("\n"));
  return text.includes(gold) || text.includes(JSON.stringify(gold).slice(1, -1));
}

/** Whether the episode's data, as the API and the viewer page serve it, hands out the gold solution. */
async function goldServed(episodeId: string, gold: string): Promise<boolean> {
  const api = await (await fetch(`${baseUrl}/api/episodes/${episodeId}`)).text();
  const html = (await (await fetch(`${baseUrl}/episodes/${episodeId}`)).text())
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
  return [api, html].some((t) => t.includes(gold) || t.includes(JSON.stringify(gold).slice(1, -1)));
}

// A run-unique suffix: study names are unique in the store.
const RUN = Date.now().toString(36);
const ANNOTATOR = `ann-${RUN}`;

describe("human baseline study", () => {
  it("a slice study, feedback none until submit: name remembered, clock from the first action, progress, skip, store", { timeout: 300_000 }, async () => {
    const page = await browser.browser.newPage();
    const studies = new StudyPage(page, baseUrl);
    const play = new PlayPage(page, baseUrl);
    const studyId = await studies.create({
      name: `slice ${RUN}`,
      dataset: "demo-sql",
      selection: { kind: "slice", from: 10, count: 3 },
      feedback: "none",
      turnLimit: 4,
      showGoldAfterSubmit: true,
    });
    const tasks = readStudyTasks(dbPath, studyId);
    expect(tasks).toEqual(SQL.slice(10, 13).map((t) => t.id));

    // A new browser: the study asks for a name, then sends the annotator to the first task.
    await studies.enter(studyId);
    await studies.giveName(ANNOTATOR);
    await play.waitReady();
    expect(new URL(page.url()).searchParams.get("study")).toBe(studyId);
    expect(await studies.waitPosition(1)).toMatch(/1 \/ 3$/);
    expect(await play.turnsText()).toMatch(/turns 0 \/ 4/);
    expect(await goldShown(page, goldOf(tasks[0]))).toBe(false);
    // While the task runs, the way on is submit or skip: no "next" (it would reopen this task as a
    // second episode) and no restart (a second episode and a new clock).
    expect(await page.locator('[data-testid="next"]').count()).toBe(0);
    expect(await page.locator('button:has-text("Restart")').count()).toBe(0);

    // The clock waits for the first action.
    expect(await studies.clockSeconds()).toBe(0);
    await page.waitForTimeout(2200);
    expect(await studies.clockSeconds()).toBe(0);

    // Opening the task stored nothing: the episode starts with its first action.
    expect(await play.status()).toBe("ready");
    expect(play.episodeId()).toBe("");
    expect(readStudyEpisodes(dbPath, studyId)).toHaveLength(0);
    // Reload: the name is remembered (no form).
    await page.reload();
    await play.waitReady();
    expect(await page.locator('[data-testid="annotator"]').count()).toBe(0);
    expect(await page.textContent("body")).toContain(`annotator: ${ANNOTATOR}`);

    await play.typeInConsole("SELECT 'not the answer'");
    await play.waitTurns(1);
    await play.waitStatus("running");
    const first = play.episodeId();
    expect(first).not.toBe("");
    await page.waitForFunction(() => /0?0:0[2-9]|0?0:[1-5]\d/.test(document.querySelector('[data-testid="clock"]')?.textContent ?? ""), undefined, {
      timeout: 10_000,
    });
    // Feedback "none": no reward while playing, and still no gold.
    expect(await page.locator('[data-testid="feedback-reward"]').count()).toBe(0);
    expect(await play.consoleText()).not.toMatch(/reward/);
    expect(await goldShown(page, goldOf(tasks[0]))).toBe(false);
    // Nor can the annotator read it from the episode's own data while it runs.
    expect(await goldServed(first, goldOf(tasks[0]))).toBe(false);
    // A reload mid-episode keeps the clock (it counts from the stored first action).
    const before = await studies.clockSeconds();
    await page.reload();
    await play.waitReady();
    expect(play.episodeId()).toBe(first);
    expect(await studies.clockSeconds()).toBeGreaterThanOrEqual(before);
    await play.typeInConsole(goldOf(tasks[0]));
    await play.waitTurns(2);
    expect(await page.locator('[data-testid="feedback-reward"]').count()).toBe(0);
    expect(await page.locator('[data-testid="gold"]').count()).toBe(0);
    expect(await play.submit()).toBe(1);
    expect(await play.gold()).toContain(goldOf(tasks[0]));
    // The check above can see gold: after submit it finds it on the page. The episode's data keeps it
    // sealed while the study is open (the gold after submit is the study's choice, for its annotator).
    expect(await goldShown(page, goldOf(tasks[0]))).toBe(true);
    expect(await goldServed(first, goldOf(tasks[0]))).toBe(false);

    // Next: the second task; skip it with a reason; the third comes.
    await page.click('[data-testid="next"]');
    expect(await studies.waitPosition(2)).toMatch(/2 \/ 3$/);
    await play.waitReady();
    expect(await goldShown(page, goldOf(tasks[1]))).toBe(false);
    await studies.skip("the join is beyond me");
    expect(await studies.waitPosition(3)).toMatch(/3 \/ 3$/);
    await play.waitReady();
    await play.typeInConsole(goldOf(tasks[2]));
    await play.waitTurns(1);
    expect(await play.submit()).toBe(1);
    await page.click('[data-testid="next"]');
    await page.waitForSelector("text=All 3 tasks done");

    // The store: one episode a task, in study order, with annotator, conditions and timings.
    const eps = readStudyEpisodes(dbPath, studyId);
    expect(eps.map((e) => e.taskId)).toEqual(tasks);
    expect(eps.map((e) => e.status)).toEqual(["submitted", "abandoned", "submitted"]);
    expect(eps[1].errorReason).toContain("the join is beyond me");
    for (const e of eps) {
      expect(e).toMatchObject({ annotator: ANNOTATOR, mode: "baseline", feedback: "none", turnLimit: 4 });
      expect(e.endedAt).not.toBeNull();
      expect(e.durationMs).toBeGreaterThan(0);
      for (const t of e.turns) {
        expect(t.startedAt).not.toBeNull();
        expect(t.durationMs).not.toBeNull();
      }
    }
    // Two actions of four: the submit is a turn of its own.
    expect(eps[0].turns.map((t) => t.action)).toEqual(["SELECT 'not the answer'", goldOf(tasks[0]), "submit"]);
    // Feedback "none": no turn was scored while playing.
    expect(eps[0].turns.slice(0, 2).map((t) => t.reward)).toEqual([null, null]);
    expect(eps[0].reward).toBe(1);
    // The clock's start is the first action, stored; the episode was stored then too, not when the
    // page opened it at least 2 s before.
    expect(eps[0].firstActionAt).toBe(eps[0].turns[0].startedAt);
    expect(eps[0].firstActionAt! - eps[0].startedAt).toBeGreaterThanOrEqual(0);
    expect(eps[0].firstActionAt! - eps[0].startedAt).toBeLessThan(1000);
    expect(eps[0].endedAt!).toBeGreaterThanOrEqual(eps[0].firstActionAt!);
    expect(eps[1].turns).toEqual([]);
    expect(eps[1].firstActionAt).toBeNull();
    await studies.close(studyId);
    await page.close();
  });

  it("a finished episode's clock, after a reload, shows its stored duration (first action to end) and does not tick", { timeout: 180_000 }, async () => {
    const page = await browser.browser.newPage();
    const studies = new StudyPage(page, baseUrl);
    const play = new PlayPage(page, baseUrl);
    const studyId = await studies.create({
      name: `clock ${RUN}`,
      dataset: "demo-sql",
      selection: { kind: "slice", from: 14, count: 1 },
      feedback: "none",
      turnLimit: 4,
      showGoldAfterSubmit: true,
    });
    const [taskId] = readStudyTasks(dbPath, studyId);
    // The name, as the earlier tests leave it in this browser (so this test also runs alone).
    await page.evaluate((name) => window.localStorage.setItem("icstudio.annotator", name), ANNOTATOR);
    await studies.enter(studyId);
    await play.waitReady();
    // Some reading time before the first action: the clock (and the stored duration) leave it out.
    await page.waitForTimeout(1500);
    await play.typeInConsole(goldOf(taskId));
    await play.waitTurns(1);
    await page.waitForTimeout(1200);
    expect(await play.submit()).toBe(1);
    // Stopped at the submit, while still on the page.
    const atSubmit = await studies.clockSeconds();
    await page.waitForTimeout(2000);
    expect(await studies.clockSeconds()).toBe(atSubmit);

    // Later, the same episode's page again: it opens finished, with the span it had.
    await page.waitForTimeout(3000);
    const episodeId = play.episodeId();
    await page.reload();
    await play.waitReady();
    expect(play.episodeId()).toBe(episodeId);
    await play.reward();
    await page.waitForFunction(() => !/00:00/.test(document.querySelector('[data-testid="clock"]')?.textContent ?? ""), undefined, { timeout: 10_000 });
    const first = await studies.clockSeconds();
    await page.waitForTimeout(2000);
    const second = await studies.clockSeconds();
    expect(second).toBe(first);

    const [ep] = readStudyEpisodes(dbPath, studyId);
    expect(ep.id).toBe(episodeId);
    expect(ep.status).toBe("submitted");
    // The store's duration runs from the first action to the end, and the clock shows it (whole seconds, as mm:ss).
    expect(ep.durationMs).toBe(ep.endedAt! - ep.firstActionAt!);
    // Stored at its first action, not when the page opened it 1.5 s before.
    expect(ep.firstActionAt! - ep.startedAt).toBeGreaterThanOrEqual(0);
    expect(ep.firstActionAt! - ep.startedAt).toBeLessThan(1000);
    expect(ep.durationMs!).toBeGreaterThanOrEqual(1200);
    expect(first).toBe(Math.floor(ep.durationMs! / 1000));
    // The live clock stopped at the same second, within the message's way to the browser.
    expect(Math.abs(atSubmit - first)).toBeLessThanOrEqual(1);
    await studies.close(studyId);
    await page.close();
  });

  it("a seeded random study, reward after every turn: same seed same tasks, the turn limit holds, no gold before submit", { timeout: 300_000 }, async () => {
    const page = await browser.browser.newPage();
    const studies = new StudyPage(page, baseUrl);
    const play = new PlayPage(page, baseUrl);
    const studyId = await studies.create({
      name: `random ${RUN}`,
      dataset: "demo-sql",
      selection: { kind: "random", count: 2, seed: 7 },
      feedback: "reward",
      turnLimit: 2,
      showGoldAfterSubmit: true,
    });
    const tasks = readStudyTasks(dbPath, studyId);
    expect(new Set(tasks).size).toBe(2);
    for (const t of tasks) expect(SQL.map((x) => x.id)).toContain(t);
    // The same seed picks the same tasks; another seed, another sample of the set.
    const again = (await (
      await fetch(`${baseUrl}/api/studies`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: `random again ${RUN}`, env: "sql", dataset: "demo-sql", selection: { kind: "random", count: 2, seed: 7 } }),
      })
    ).json()) as { id: string };
    expect(readStudyTasks(dbPath, again.id)).toEqual(tasks);
    // Closed at once: an open study seals its tasks (here, the study under test's own).
    await studies.close(again.id);
    const other = (await (
      await fetch(`${baseUrl}/api/studies`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: `random other ${RUN}`, env: "sql", dataset: "demo-sql", selection: { kind: "random", count: SQL.length, seed: 8 } }),
      })
    ).json()) as { id: string };
    const all = readStudyTasks(dbPath, other.id);
    expect([...all].sort()).toEqual(SQL.map((x) => x.id).sort());
    expect(all).not.toEqual(SQL.map((x) => x.id));
    await studies.close(other.id);

    // The name given in the first test is remembered in this browser: no form this time.
    await studies.enter(studyId);
    await play.waitReady();
    expect(await page.locator('[data-testid="annotator"]').count()).toBe(0);
    expect(await studies.waitPosition(1)).toMatch(/1 \/ 2$/);
    expect(await play.turnsText()).toMatch(/turns 0 \/ 2/);

    // Feedback "reward": the reward after each turn, as Try Again agents saw it; gold only after submit.
    await play.typeInConsole("SELECT 'not the answer'");
    await play.waitTurns(1);
    const low = await page.waitForSelector('[data-testid="feedback-reward"]');
    expect(await low.textContent()).toMatch(/reward now 0\.\d\d/);
    await play.waitConsole(/reward if submitted now: 0\.\d\d/);
    expect(await goldShown(page, goldOf(tasks[0]))).toBe(false);
    await play.typeInConsole(goldOf(tasks[0]));
    await play.waitTurns(2);
    await page.waitForSelector('[data-testid="feedback-reward"]:has-text("reward now 1.00")');
    expect(await page.locator('[data-testid="gold"]').count()).toBe(0);

    // The turn limit (2) holds: a third action is refused and not stored.
    await play.typeInConsole("SELECT 3");
    await play.waitConsole(/turn limit reached/);
    expect(await play.turnsText()).toMatch(/turns 2 \/ 2/);
    expect(await play.submit()).toBe(1);
    expect(await play.gold()).toContain(goldOf(tasks[0]));

    await page.click('[data-testid="next"]');
    expect(await studies.waitPosition(2)).toMatch(/2 \/ 2$/);
    await play.waitReady();
    await studies.skip("");
    await page.waitForSelector("text=All 2 tasks done");

    const eps = readStudyEpisodes(dbPath, studyId);
    expect(eps.map((e) => [e.taskId, e.status, e.annotator, e.feedback, e.turnLimit])).toEqual([
      [tasks[0], "submitted", ANNOTATOR, "reward", 2],
      [tasks[1], "abandoned", ANNOTATOR, "reward", 2],
    ]);
    // The submit came at the turn limit (2): InterCode's forced submit, scored but not a turn.
    expect(eps[0].turns.map((t) => t.action)).toEqual(["SELECT 'not the answer'", goldOf(tasks[0])]);
    expect(eps[0].turns[0].reward).toBeLessThan(1);
    expect(eps[0].turns[1].reward).toBe(1);
    expect(eps[1].errorReason).toMatch(/skip/);
    await studies.close(studyId);
    await page.close();
  });
});
