import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { connectWs } from "@/lib/testing/ws-client";
import { launchBrowser } from "@/lib/testing/browser";
import { PlayPage } from "./pages/play-page";
import { ROOT } from "@/lib/testing/studio-server";

// axe-core on the main pages, as a person reaches them: no serious or critical violation. The
// counts of every impact are written to e2e/artifacts/a11y.json for the record.

const baseUrl = inject("baseUrl");
const ARTIFACTS = path.join(ROOT, "e2e/artifacts");

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let episodeId = "";
let studyId = "";
beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchBrowser();
  page = await browser.browser.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  // One finished episode to replay, and a study (of other tasks: a study seals its tasks while open).
  const task = loadDataset("demo-sql")[0];
  const ws = await connectWs(baseUrl);
  ws.send({ type: "open", env: "sql", taskRef: `${task.dataset}:${task.id}`, mode: "play", feedback: "none" });
  episodeId = (await ws.next("opened")).episode.id;
  ws.send({ type: "action", text: "SELECT 1", source: "console" });
  await ws.next("turnEnd");
  ws.send({ type: "submit" });
  await ws.next("submitted");
  ws.close();
  const res = await fetch(`${baseUrl}/api/studies`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: `a11y ${Date.now().toString(36)}`,
      env: "sql",
      dataset: "demo-sql",
      selection: { kind: "slice", from: 22, count: 2 },
      feedback: "none",
      turnLimit: 5,
    }),
  });
  expect(res.status).toBe(201);
  studyId = ((await res.json()) as { id: string }).id;
}, 120_000);
afterAll(async () => {
  // An open study seals its tasks: closed, it leaves them to the other files sharing the server.
  if (studyId) await fetch(`${baseUrl}/api/studies/${studyId}/close`, { method: "POST" });
  await browser?.close();
});

const counts: Record<string, Record<string, number>> = {};
afterAll(() => {
  fs.writeFileSync(path.join(ARTIFACTS, "a11y.json"), JSON.stringify(counts, null, 2));
});

/** Runs axe on the page as it is; returns the serious and critical violations, described. */
async function audit(name: string): Promise<string[]> {
  const result = await new AxeBuilder({ page: page as never }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const byImpact: Record<string, number> = { minor: 0, moderate: 0, serious: 0, critical: 0 };
  for (const v of result.violations) byImpact[v.impact ?? "minor"] += v.nodes.length;
  counts[name] = byImpact;
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(" "))
          .join(" | ")}`,
    );
}

describe("accessibility (axe-core): no serious or critical violations", () => {
  it("/play", async () => {
    await page.goto(`${baseUrl}/play`);
    await page.waitForSelector('[data-testid="task-list"]');
    expect(await audit("/play")).toEqual([]);
  });

  it("a task page", async () => {
    const play = new PlayPage(page, baseUrl);
    const task = loadDataset("demo-sql")[1];
    await play.open("sql", task.dataset, task.id);
    await play.waitReady();
    await page.waitForSelector('[data-testid="editor"][data-ready="1"]');
    expect(await audit("task page")).toEqual([]);
    await play.abandon();
  });

  it("/episodes", async () => {
    await page.goto(`${baseUrl}/episodes`);
    await page.waitForSelector('[data-testid="episode-table"]');
    expect(await audit("/episodes")).toEqual([]);
  });

  it("a replay", async () => {
    await page.goto(`${baseUrl}/episodes/${episodeId}`);
    await page.waitForSelector('[data-testid="replay"][data-ready="1"]');
    expect(await audit("replay")).toEqual([]);
  });

  it("/episodes/stats", async () => {
    await page.goto(`${baseUrl}/episodes/stats`);
    await page.waitForLoadState("networkidle");
    expect(await audit("/episodes/stats")).toEqual([]);
  });

  it("/status (live helpers and sandboxes)", async () => {
    await page.goto(`${baseUrl}/status`);
    await page.waitForSelector("h1");
    expect(await page.textContent("h1")).toBe("Status");
    expect(await audit("/status")).toEqual([]);
  });

  it("/models and /runs", async () => {
    await page.goto(`${baseUrl}/models`);
    await page.waitForSelector('[data-testid="model-add"]');
    expect(await audit("/models")).toEqual([]);
    await page.goto(`${baseUrl}/runs`);
    await page.waitForSelector('[data-testid="run-new"]');
    expect(await audit("/runs")).toEqual([]);
  });

  it("a study: the list and its results", async () => {
    await page.goto(`${baseUrl}/play/studies`);
    await page.waitForSelector('form[aria-label="new study"]');
    expect(await audit("/play/studies")).toEqual([]);
    await page.goto(`${baseUrl}/play/study/${studyId}/results`);
    await page.waitForSelector("h1");
    expect(await audit("study results")).toEqual([]);
  });
});
