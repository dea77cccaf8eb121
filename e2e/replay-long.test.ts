import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { insertEpisodesBulk } from "@/lib/db/bulk-import";
import { launchBrowser } from "@/lib/testing/browser";
import { ReplayPage } from "./pages/replay-page";

const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");

const TURNS = 2_000;
/** A turn whose observation is longer than the replay fetches with the turn (20,000 characters). */
const LONG_TURN = 1_500;
const LONG_CHARS = 60_000;
const RUN = Date.now().toString(36);

/**
 * Each turn's observation: about 5 KB (10 MB in all), opening with a marker naming the turn; every
 * odd turn also prints an error, so every odd turn has a suggested tag (no-such-file).
 */
const observationOf = (k: number) =>
  `marker-${k}-end\n${"x".repeat(k === LONG_TURN ? LONG_CHARS : 5_000)}${k % 2 ? `\ncat: f${k}: No such file or directory` : ""}`;

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Awaited<ReturnType<typeof browser.browser.newPage>>;
let viewer: ReplayPage;
let id = "";

// In the page from its first script on: the most timeline items the DOM ever held at once.
const DOM_WATCH = `
  window.__icMaxTurns = 0;
  new MutationObserver(() => {
    const n = document.querySelectorAll('[data-testid="turn"]').length;
    if (n > window.__icMaxTurns) window.__icMaxTurns = n;
  }).observe(document, { childList: true, subtree: true });
`;
const maxTurnsInDom = () => page.evaluate(() => (window as unknown as { __icMaxTurns: number }).__icMaxTurns);

/** Waits until the current turn is held and shows turn `k`'s (0-based) observation; returns that text. */
async function currentObservation(k: number): Promise<string> {
  const sel = `[data-testid="turn"][data-current="1"][data-index="${k}"][data-loaded="1"] [data-testid="observation"]`;
  await page.waitForSelector(sel, { timeout: 15_000 });
  return (await page.textContent(sel)) ?? "";
}

beforeAll(async () => {
  process.env.IC_DB = dbPath;
  await insertEpisodesBulk({
    episodes: [
      {
        sourceKey: `e2e-long:${RUN}`,
        environment: "bash",
        dataset: "e2e-long",
        taskId: `long-${RUN}`,
        taskIndex: 0,
        query: "a generated episode of 2,000 turns",
        playerKind: "model",
        annotator: null,
        model: "e2e-model",
        policy: "try-again",
        turnLimit: TURNS,
        mode: "eval",
        status: "submitted",
        reward: 1,
        success: true,
        solvedAtTurn: TURNS,
        startedAt: Date.now(),
        endedAt: Date.now(),
        durationMs: 1000,
        hardness: null,
        tags: "",
        // Rewards recorded on the second half only: the first half's are would-be rewards.
        turns: Array.from({ length: TURNS }, (_, k) => ({
          index: k,
          actor: "model",
          action: `echo step ${k}`,
          observation: observationOf(k),
          ok: true,
          reward: k === TURNS - 1 ? 1 : k < TURNS / 2 ? null : 0,
          durationMs: 5,
        })),
      },
    ],
  });
  const Database = (await import("better-sqlite3")).default;
  const db = new Database(dbPath, { readonly: true });
  id = (db.prepare(`SELECT "id" FROM "Episode" WHERE "sourceKey" = ?`).get(`e2e-long:${RUN}`) as { id: string }).id;
  db.close();
  browser = await launchBrowser();
  page = await browser.browser.newPage();
  await page.addInitScript(DOM_WATCH);
  viewer = new ReplayPage(page, baseUrl);
});
afterAll(async () => {
  await browser?.close();
});

describe("a replay of 2,000 turns", () => {
  it("opens from a page of one window, steps with j and End, follows a deep link, and the DOM never holds more than a window of turns", async () => {
    const html = await (await fetch(`${baseUrl}/episodes/${id}`)).text();
    expect(Buffer.byteLength(html)).toBeLessThan(300 * 1024);

    await viewer.openEpisode(id);
    expect(await viewer.position()).toMatch(/^turn 1 \/ 2000$/);
    expect(await currentObservation(0)).toMatch(/^marker-0-end/);
    for (let i = 0; i < 5; i++) await viewer.press("j");
    expect(await viewer.position()).toMatch(/^turn 6 \/ 2000$/);
    expect(await currentObservation(5)).toMatch(/^marker-5-end/);
    expect(await viewer.urlTurn(6)).toBe("6");

    // End: the last turn, fetched as the reader got there.
    await viewer.press("End");
    expect(await viewer.position()).toMatch(/^turn 2000 \/ 2000$/);
    expect(await currentObservation(1999)).toMatch(/^marker-1999-end/);
    expect(await viewer.currentSteps()).toEqual([1999]);
    expect(await viewer.urlTurn(2000)).toBe("2000");
    await viewer.press("k");
    expect(await currentObservation(1998)).toMatch(/^marker-1998-end/);
    await viewer.press("Home");
    expect(await currentObservation(0)).toMatch(/^marker-0-end/);
    await page.waitForSelector('[data-testid="reward-curve"] svg');
    // The curve's marker follows the current turn (drawn apart from the chart's lines).
    const markerX = () => page.$eval('[data-testid="reward-curve-marker"]', (el) => Number(el.getAttribute("x1")));
    await page.waitForSelector('[data-testid="reward-curve-marker"]', { state: "attached" });
    const atStart = await markerX();
    await viewer.press("End");
    expect(await currentObservation(1999)).toMatch(/^marker-1999-end/);
    await page.waitForFunction((x) => Number(document.querySelector('[data-testid="reward-curve-marker"]')?.getAttribute("x1")) > x, atStart, {
      timeout: 5_000,
    });
    // The suggestions beside the replay are those of the current turn's page (and the episode's), not the episode's 1,000.
    const suggested = await viewer.suggestions();
    expect(suggested.length).toBeGreaterThan(0);
    expect(suggested.length).toBeLessThanOrEqual(50);
    expect(suggested).toContain("no-such-file@turn 2000");
    await viewer.press("Home");
    expect(await currentObservation(0)).toMatch(/^marker-0-end/);
    expect(await maxTurnsInDom()).toBeGreaterThan(0);
    expect(await maxTurnsInDom()).toBeLessThanOrEqual(60);

    // A deep link into the middle, to a turn whose output is longer than what travels with it.
    await viewer.openEpisode(id, `?turn=${LONG_TURN + 1}`);
    expect(await viewer.position()).toBe(`turn ${LONG_TURN + 1} / 2000`);
    const cut = await currentObservation(LONG_TURN);
    expect(cut).toMatch(new RegExp(`^marker-${LONG_TURN}-end`));
    expect(cut.length).toBeLessThanOrEqual(20_000);
    await page.click('[data-testid="turn"][data-current="1"] [data-testid="show-all"]');
    await page.waitForFunction(
      (n) => (document.querySelector('[data-testid="turn"][data-current="1"] [data-testid="observation"]')?.textContent ?? "").length === n,
      observationOf(LONG_TURN).length,
      { timeout: 15_000 },
    );
    await viewer.press("j");
    expect(await currentObservation(LONG_TURN + 1)).toMatch(new RegExp(`^marker-${LONG_TURN + 1}-end`));
    expect(await maxTurnsInDom()).toBeLessThanOrEqual(60);
    expect(await page.evaluate(() => document.getElementsByTagName("*").length)).toBeLessThan(3_000);
  });

  it("scores and suggests a page of turns at a time, and names a bad parameter", async () => {
    const post = (q: string) => fetch(`${baseUrl}/api/episodes/${id}/turn-scores${q}`, { method: "POST" });
    const r = await post("?from=1990&limit=50");
    expect(r.status).toBe(200);
    const scores = (await r.json()) as { from: number; turns: { index: number; reward: number | null; rewardFrom: string | null }[] };
    expect(scores.from).toBe(1990);
    expect(scores.turns.map((t) => t.index)).toEqual(Array.from({ length: 10 }, (_, k) => 1990 + k));
    expect(scores.turns.at(-1)).toMatchObject({ reward: 1, rewardFrom: "recorded" });
    expect((await post("?from=0&limit=51")).status).toBe(400);
    const s = await fetch(`${baseUrl}/api/episodes/${id}/suggestions?from=100&limit=10`);
    expect(s.status).toBe(200);
    const { suggestions } = (await s.json()) as { suggestions: { tag: string; turnIndex: number | null }[] };
    expect(suggestions.filter((x) => x.tag === "no-such-file").map((x) => x.turnIndex)).toEqual([101, 103, 105, 107, 109]);
    expect(suggestions.every((x) => x.turnIndex === null || (x.turnIndex >= 100 && x.turnIndex < 110))).toBe(true);
    const bad = await fetch(`${baseUrl}/api/episodes/${id}/suggestions?from=-1`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/from/);
  });

  it("pages turns through /api/episodes/:id/turns, a cursor over turn indices, and names a bad parameter", async () => {
    const r = await fetch(`${baseUrl}/api/episodes/${id}/turns?from=1990&limit=50`);
    expect(r.status).toBe(200);
    const w = (await r.json()) as { from: number; turnCount: number; turns: { index: number; observation: string; observationChars: number }[] };
    expect(w.turnCount).toBe(TURNS);
    expect(w.turns.map((t) => t.index)).toEqual(Array.from({ length: 10 }, (_, k) => 1990 + k));
    expect(w.turns[0].observation.length).toBeLessThan(w.turns[0].observationChars);
    const whole = (await (await fetch(`${baseUrl}/api/episodes/${id}/turns?from=${LONG_TURN}&limit=1&full=1`)).json()) as { turns: { observation: string }[] };
    expect(whole.turns[0].observation).toBe(observationOf(LONG_TURN));
    const bad = await fetch(`${baseUrl}/api/episodes/${id}/turns?from=0&limit=0`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/limit/);
    const many = await fetch(`${baseUrl}/api/episodes/${id}/turns?from=0&limit=5&full=1`);
    expect(many.status).toBe(400);
  });
});
