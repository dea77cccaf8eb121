import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { ROOT } from "@/lib/testing/studio-server";
import { ReplayPage } from "./pages/replay-page";

// The failure pages in a browser: InterCode's sample logs imported through the list, then from a
// model and policy to an example turn in two clicks (by mouse and by keyboard), the task QA page
// and its exports; axe-core finds no serious or critical violation on either page.

const baseUrl = inject("baseUrl");
const SHARED = process.env.IC_INTERCODE_DIR ?? path.resolve(ROOT, "../shared/intercode");
const SAMPLE = path.join(SHARED, "results-sample");
const LOGS = fs.readdirSync(SAMPLE).flatMap((env) => fs.readdirSync(path.join(SAMPLE, env)).map((f) => path.join(SAMPLE, env, f)));

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
beforeAll(async () => {
  // The imported episodes' tasks must be known to the server: fetch them from the shared copy once.
  try {
    loadDataset("spider-dev");
  } catch {
    const { fetchIntercode } = await import("@/lib/datasets/fetch");
    await fetchIntercode({ from: SHARED });
  }
  browser = await launchBrowser();
  page = await browser.browser.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const viewer = new ReplayPage(page, baseUrl);
  await viewer.openList();
  // Imported before by another file or not, the episodes are there after this (an import is idempotent).
  expect(await viewer.importFiles(LOGS)).toMatch(/added|skipped/);
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

async function seriousViolations(): Promise<string[]> {
  const result = await new AxeBuilder({ page: page as never }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.help}`);
}

/** Presses Tab until the focused element matches `selector` (at most `max` times); returns whether it did. */
async function tabTo(selector: string, max = 200): Promise<boolean> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return true;
  }
  return false;
}

describe("failure pages", () => {
  it("/failures groups the failing episodes; a model/policy count, then a turn: the replay opens at that turn (mouse)", async () => {
    await page.goto(`${baseUrl}/failures?env=bash`);
    await page.waitForSelector('[data-testid="failure-groups"]');
    expect(await seriousViolations()).toEqual([]);
    // Click 1: a group's count for gpt-4 · try-again (the bash log's model and policy).
    const count = page.locator('[data-testid="failure-groups"] tbody a[aria-label*="gpt-4 try-again"]').first();
    const label = (await count.getAttribute("aria-label")) ?? "";
    const n = Number(label.split(" ")[0]);
    expect(n).toBeGreaterThan(0);
    await count.click();
    await page.waitForSelector('[data-testid="group-episode-list"]');
    expect(new URL(page.url()).searchParams.get("model")).toBe("gpt-4");
    expect(await page.locator('[data-testid="group-episode-list"] tbody tr').count()).toBe(n);
    expect(await page.textContent('[data-testid="group-episodes"]')).toBe(String(n));
    expect(await seriousViolations()).toEqual([]);
    // Click 2: the first episode's turn.
    const turnLink = page.locator('[data-testid="group-episode-list"] tbody a').first();
    const href = (await turnLink.getAttribute("href")) ?? "";
    await turnLink.click();
    await page.waitForSelector('[data-testid="replay"][data-ready="1"]');
    const want = new URL(href, baseUrl).searchParams.get("turn");
    if (want) expect(await new ReplayPage(page, baseUrl).currentSteps()).toEqual([Number(want) - 1]);
  }, 120_000);

  it("the same two steps by keyboard, grouped by last error", async () => {
    await page.goto(`${baseUrl}/failures?groupBy=cluster`);
    await page.waitForSelector('[data-testid="failure-groups"]');
    expect(await seriousViolations()).toEqual([]);
    expect(await tabTo('[data-testid="failure-groups"] tbody td a')).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="group-episode-list"]');
    expect(new URL(page.url()).searchParams.get("groupBy")).toBe("cluster");
    expect(await tabTo('[data-testid="group-episode-list"] tbody a')).toBe(true);
    const href = await page.evaluate(() => (document.activeElement as HTMLAnchorElement).getAttribute("href"));
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="replay"][data-ready="1"]');
    // The episode the link names; at its turn when the group points at one (a group of episodes
    // with no error points at none, and the replay then opens at its first turn).
    const want = new URL(href ?? "", baseUrl);
    const got = new URL(page.url());
    expect(got.pathname).toBe(want.pathname);
    const turn = want.searchParams.get("turn");
    if (turn) expect(await new ReplayPage(page, baseUrl).currentSteps()).toEqual([Number(turn) - 1]);
  }, 120_000);

  it("/failures/tasks lists the suspect tasks and exports them as CSV and JSON", async () => {
    await page.goto(`${baseUrl}/failures/tasks`);
    await page.waitForSelector('[data-testid="qa-counts"]');
    expect(await seriousViolations()).toEqual([]);
    const csvHref = await page.getAttribute('a[href^="/api/failures/tasks"][href*="format=csv"]', "href");
    const csv = await fetch(new URL(csvHref ?? "", baseUrl));
    expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
    expect((await csv.text()).split("\r\n")[0]).toBe("environment,dataset,taskId,kind,evidence,episodes");
    const json = await fetch(new URL((await page.getAttribute('a[href*="format=json"]', "href")) ?? "", baseUrl));
    const body = (await json.json()) as { suspects: unknown[]; counts: Record<string, number> };
    expect(body.suspects.length).toBe(Object.values(body.counts).reduce((a, b) => a + b, 0));
    expect(await page.locator('[data-testid="task-suspects"] tbody tr, [data-testid="no-suspects"]').count()).toBeGreaterThan(0);
  });
});
