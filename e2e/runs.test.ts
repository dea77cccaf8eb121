import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { goldAction, goldScript, ruleFor, scriptedReplies } from "@/lib/agent/scripts";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "./browser";
import { AgentPage } from "./pages/agent-page";
import { RunsPage } from "./pages/runs-page";
import { ROOT, startServer, type RunningServer } from "./server";

/**
 * Batch runs in the browser against the scripted OpenAI-compatible server: launch a 5-task run,
 * reload while it runs (the page picks up the live run again), watch it finish, compare it with
 * a second run; and a model's watch page (?agent=<id>) reattaching after a reload.
 */

const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
const tasks = loadDataset("demo-sql").slice(0, 5);
let scripted: ScriptedServer;
let app: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  scripted = await startScriptedServer({ rules: [] });
  const configDir = fs.mkdtempSync(path.join(ROOT, "var", "e2e-run-models-"));
  const config = path.join(configDir, "models.json");
  fs.writeFileSync(config, JSON.stringify({ models: [{ id: "scripted-runs", provider: "openai-compatible", model: "scripted", baseURL: scripted.baseURL, contextWindow: 32768, price: { inputPerMtok: 1, outputPerMtok: 2 } }] }));
  app = await startServer({ IC_MODELS_CONFIG: config });
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await scripted?.close();
});

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${app.url}${url}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

describe("runs in the browser", () => {
  it("launches a 5-task run, survives a reload mid-run, finishes at 5 / 5 with its success rate, and compares with a second run", async () => {
    // Slow replies, so the run is still going when the page is reloaded.
    scripted.setScript({ ...goldScript("try-again", tasks), delayMs: 500 });
    const page = await browser.browser.newPage();
    const runs = new RunsPage(page, app.url);
    const first = await runs.launch({ env: "sql", dataset: "demo-sql", limit: 5, model: "scripted-runs", policy: "try-again", turns: 4 });
    await page.waitForFunction(() => /^[1-4] \/ 5$/.test(document.querySelector('[data-testid="run-progress"]')?.textContent?.trim() ?? ""), null, { timeout: 90_000 });
    await page.reload();
    // After the reload the page follows the live run again: it is shown running and reaches the end by itself.
    expect(await page.getAttribute('[data-testid="run-view"]', "data-live")).toBe("1");
    const [doneAtReload] = await runs.progress();
    expect(doneAtReload).toBeLessThan(5);
    await runs.waitProgress("5 / 5");
    await page.waitForSelector('[data-testid="run-view"][data-live="0"]');
    expect(await runs.successRate()).toBe("100.0%");
    expect(await runs.taskStatuses()).toEqual(Array(5).fill("submitted"));
    await page.waitForSelector('[data-testid="run-success-at-k"] svg');
    await page.screenshot({ path: path.join(ARTIFACTS, "run.png"), fullPage: true });

    // A second run on the same tasks in which the last two are answered wrongly.
    scripted.setScript({ rules: tasks.map((t, i) => ruleFor(t, scriptedReplies("try-again", t, i < 3 ? "solve" : "wrong"))) });
    const second = await api<{ id: string }>("POST", "/api/runs", { env: "sql", dataset: "demo-sql", selection: { kind: "slice", limit: 5 }, model: "scripted-runs", policy: "try-again", turns: 4, concurrency: 2, name: "second" });
    for (let i = 0; ; i++) {
      const v = await api<{ live: boolean; done: number }>("GET", `/api/runs/${second.id}`);
      if (!v.live && v.done === 5) break;
      if (i > 600) throw new Error("the second run did not finish");
      await new Promise((r) => setTimeout(r, 200));
    }
    await page.goto(`${app.url}/runs/${first}`);
    await page.selectOption('[data-testid="run-compare-with"]', second.id);
    await page.click('[data-testid="run-compare"]');
    await page.waitForURL(/\/runs\/compare\?/);
    const count = async (id: string) => Number(await page.getAttribute(`[data-testid="${id}"]`, "data-count"));
    expect([await count("pair-both"), await count("pair-a-only"), await count("pair-b-only"), await count("pair-neither")]).toEqual([3, 2, 0, 0]);
    const onlyFirst = await page.$$eval('[data-testid="pair-a-only"] [data-testid="pair-row"]', (els) => els.map((e) => e.getAttribute("data-task")));
    expect(onlyFirst).toEqual([tasks[3]!.id, tasks[4]!.id]);
    await page.screenshot({ path: path.join(ARTIFACTS, "runs-compare.png"), fullPage: true });
    // Each task's two episodes side by side.
    await page.click('[data-testid="pair-a-only"] [data-testid="pair-compare"]');
    await page.waitForURL(/\/compare\?ids=[^,]+,[^,]+$/);
    await page.close();
  }, 240_000);
});

describe("watching a model play a task", () => {
  it("names the run in the URL and reattaches after a reload: turns so far, live output, Pause and Take over still work", async () => {
    const task = tasks[0]!;
    // A model that keeps answering wrongly, slowly: the episode is still running after the reload.
    scripted.setScript({ rules: [ruleFor(task, [scriptedReplies("try-again", task, "wrong")[0]!])], delayMs: 700 });
    const page = await browser.browser.newPage();
    const agent = new AgentPage(page, app.url);
    await agent.open("sql", task.dataset, task.id);
    await agent.start("scripted-runs", "try-again", 30);
    await agent.waitTurns(2);
    const id = new URL(page.url()).searchParams.get("agent");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const episodeId = await agent.episodeId();

    await page.reload();
    await page.waitForSelector('[data-testid="terminal"][data-ready="1"]');
    // The same episode, its turns replayed, and still live.
    await page.waitForFunction((e) => document.querySelector('[data-testid="agent-view"]')?.getAttribute("data-episode") === e, episodeId, { timeout: 30_000 });
    await agent.waitTurns(2);
    const before = await agent.turnCount();
    await agent.waitTurns(before + 1);
    // The console shows the output from before the reload, replayed, and what came after.
    await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid="terminal"] .xterm-rows > div')).filter((d) => (d.textContent ?? "").includes("not the answer")).length >= 2, null, { timeout: 30_000 });
    await agent.click("pause");
    await agent.waitStatus("paused");
    await agent.click("takeover");
    await agent.waitStatus("human");
    // Try Again scores the person's turn too, and a reward of 1.0 ends the episode.
    await agent.runInEditor(goldAction(task));
    expect(await agent.reward()).toBe(1);
    await page.close();
  }, 180_000);
});
