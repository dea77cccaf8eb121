import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { ROOT, startServer, type RunningServer } from "@/lib/testing/studio-server";
import { connectWs } from "@/lib/testing/ws-client";

/**
 * The scanners page in the browser: a scan started by keyboard from /scans runs against the
 * scripted OpenAI-compatible server over episodes played here, and the page shows its answers and
 * its agreement with the tags people gave; both pages pass axe.
 */

const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
let scripted: ScriptedServer;
let app: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
const tasks = loadDataset("demo-sql").slice(0, 3);
const episodes: string[] = [];

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${app.url}${url}`, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json as T;
}

/** Serious and critical axe violations of the page as it is. */
async function audit(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page: page as never }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.help}`);
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // The first task's episode: yes; the second's: no; the third's: yes.
  scripted = await startScriptedServer({
    rules: tasks.map((t, i) => ({ match: t.query, replies: [i === 1 ? "NO. It ran a query that worked." : "YES: turn 1 failed, then it submitted."] })),
  });
  fs.mkdirSync(path.join(ROOT, "var"), { recursive: true });
  const configDir = fs.mkdtempSync(path.join(ROOT, "var", "e2e-models-"));
  const config = path.join(configDir, "models.json");
  fs.writeFileSync(
    config,
    JSON.stringify({
      models: [
        {
          id: "scripted-scan",
          provider: "openai-compatible",
          model: "scripted",
          baseURL: scripted.baseURL,
          contextWindow: 32768,
          price: { inputPerMtok: 0, outputPerMtok: 0 },
        },
      ],
    }),
  );
  app = await startServer({ IC_MODELS_CONFIG: config });
  browser = await launchBrowser();
  // Three sql episodes played over the websocket: a failing action, then submit.
  for (const t of tasks) {
    const ws = await connectWs(app.url);
    ws.send({ type: "open", env: "sql", taskRef: `${t.dataset}:${t.id}`, mode: "play", feedback: "none" });
    episodes.push((await ws.next("opened")).episode.id);
    ws.send({ type: "action", text: "SELECT * FROM no_such_table", source: "console" });
    await ws.next("turnEnd");
    ws.send({ type: "submit" });
    await ws.next("submitted");
    ws.close();
  }
  // People tagged the first two: the first with the scan's tag, the second with another.
  await api("POST", "/api/annotations", { kind: "tag", episodeId: episodes[0], tag: "submit-blind", author: "ann" });
  await api("POST", "/api/annotations", { kind: "tag", episodeId: episodes[1], tag: "wrong-table", author: "ann" });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await scripted?.close();
});

describe("/scans", () => {
  it("starts a scan by keyboard, names a bad filter key, shows the answers and the agreement with people; both pages pass axe", async () => {
    const page = await browser.browser.newPage();
    await page.goto(`${app.url}/scans`);
    await page.waitForSelector('form[aria-label="new scan"]');
    expect(await audit(page)).toEqual([]);

    // By keyboard: the question, Tab to each field in order, Enter on the button.
    await page.focus("#scan-question");
    await page.keyboard.type("Did the agent submit before any query worked?");
    const tabTo = async (id: string) => {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.id ?? "")).toBe(id);
    };
    await tabTo("scan-tag");
    await page.keyboard.type("submit-blind");
    await tabTo("scan-model");
    await tabTo("scan-filter");
    await page.keyboard.type("env=sql,modle=x");
    await tabTo("scan-limit");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("scan-start");
    await page.keyboard.press("Enter");
    expect(await (await page.waitForSelector('[data-testid="scan-error"]')).textContent()).toMatch(/filter: unknown filter key "modle"/);

    await page.focus("#scan-filter");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("env=sql");
    await page.focus('[data-testid="scan-start"]');
    await page.keyboard.press("Enter");
    const row = await page.waitForSelector('[data-testid="scan-row"]', { timeout: 60_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid="scan-row"] td:nth-child(5)')?.textContent?.replace(/\s/g, "") === "2·1·0", null, {
      timeout: 60_000,
    });
    // Judged by people: the first (yes, yes) and the second (no, no): full agreement, kappa 1.
    expect(await row.getAttribute("data-kappa")).toBe("1");
    expect(await page.textContent('[data-testid="scan-row"]')).toMatch(/on 2 episodes people tagged: precision 1\.00, recall 1\.00, kappa 1\.00/);
    await page.screenshot({ path: path.join(ARTIFACTS, "scans.png"), fullPage: true });

    // The scan's page by keyboard: its answers beside the people's.
    await page.focus('[data-testid="scan-row"] a');
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/scans\/[0-9a-f-]{36}$/);
    await page.waitForSelector('[data-testid="scan-answers"]');
    const answers = await page.$$eval('[data-testid="scan-answer"]', (rows) =>
      rows.map((r) => [r.querySelector("a")?.getAttribute("href"), r.getAttribute("data-answer"), r.getAttribute("data-person")]),
    );
    expect(answers.sort()).toEqual(
      [
        [`/episodes/${episodes[0]}`, "yes", "yes"],
        [`/episodes/${episodes[1]}`, "no", "no"],
        [`/episodes/${episodes[2]}`, "yes", "not tagged"],
      ].sort(),
    );
    expect(await page.textContent('[data-testid="scan-agreement"]')).toMatch(/kappa 1\.00/);
    expect(await audit(page)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, "scan.png"), fullPage: true });
    await page.close();
  }, 180_000);
});
