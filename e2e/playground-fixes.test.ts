import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { launchBrowser } from "@/lib/testing/browser";
import { ROOT, startServer, type RunningServer } from "@/lib/testing/studio-server";
import { PlayPage } from "./pages/play-page";
import { AgentPage } from "./pages/agent-page";
import { readEpisode } from "./store";

/**
 * The playground's defects from issue 24, each in the browser: a wrapped console line, leaving the
 * editor by keyboard, the CTF flag field, the link to the replay, and a model's late reply after
 * Take over. The app gets a models file whose model is the scripted OpenAI-compatible server.
 */

const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
let scripted: ScriptedServer;
let app: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  scripted = await startScriptedServer({ rules: [] });
  fs.mkdirSync(path.join(ROOT, "var"), { recursive: true });
  const dir = fs.mkdtempSync(path.join(ROOT, "var", "e2e-models-"));
  const config = path.join(dir, "models.json");
  fs.writeFileSync(
    config,
    JSON.stringify({
      models: [
        {
          id: "scripted-demo",
          provider: "openai-compatible",
          model: "scripted",
          baseURL: scripted.baseURL,
          contextWindow: 32768,
          price: { inputPerMtok: 1, outputPerMtok: 2 },
        },
      ],
    }),
  );
  app = await startServer({ IC_MODELS_CONFIG: config });
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await scripted?.close();
});

/** Waits until xterm has drawn everything written so far (it parses and renders asynchronously): the rows hold `tail`, squashed of spaces. */
async function waitDrawn(page: Page, tail: string): Promise<void> {
  await page.waitForFunction(
    (t) =>
      Array.from(document.querySelectorAll('[data-testid="terminal"] .xterm-rows > div'), (d) => d.textContent ?? "")
        .join("")
        .replace(/\s/g, "")
        .endsWith(t),
    tail.replace(/\s/g, ""),
    { timeout: 30_000 },
  );
  await page.waitForTimeout(300);
}

async function consoleRows(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid="terminal"] .xterm-rows > div', (els) => els.map((d) => (d.textContent ?? "").replace(/\s+$/, "")));
}

const focusInTerminal = (page: Page) => page.evaluate(() => !!document.activeElement?.closest('[data-testid="terminal"]'));
const focusInEditor = (page: Page) => page.evaluate(() => !!document.activeElement?.closest('[data-testid="editor"]'));

describe("playground fixes", () => {
  it("draws a line longer than the console once, however it wraps, and edits it across rows", async () => {
    const page = await browser.browser.newPage();
    const play = new PlayPage(page, app.url);
    const task = loadDataset("demo-sql")[0]!;
    await play.open("sql", task.dataset, task.id);
    const query = `SELECT ${Array.from({ length: 70 }, (_, i) => `${i} AS c${i}`).join(", ")}`;
    expect(query.length).toBeGreaterThan(600);
    await page.click('[data-testid="terminal"]');
    await page.keyboard.type(query);
    await waitDrawn(page, query.slice(-20));
    const squash = (x: string) => x.replace(/\s/g, "");
    let rows = await consoleRows(page);

    // One prompt, and the rows from it on hold the query once (before the fix every keystroke past the wrap drew it again).
    expect(rows.filter((r) => r.startsWith("sql>"))).toHaveLength(1);
    const at = rows.findIndex((r) => r.startsWith("sql>"));
    expect(squash(rows.slice(at).join(""))).toBe(squash(`sql> ${query}`));
    const cols = Math.max(...rows.map((r) => r.length));
    expect(rows.slice(at).filter(Boolean).length).toBe(Math.ceil((query.length + 5) / cols));
    // Edit in the middle, across the wrap: 120 to the left, type, delete it again.
    for (let i = 0; i < 120; i++) await page.keyboard.press("ArrowLeft");
    await page.keyboard.type("ZZ");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await waitDrawn(page, query.slice(-20));
    rows = await consoleRows(page);
    expect(rows.filter((r) => r.startsWith("sql>"))).toHaveLength(1);
    expect(squash(rows.slice(at).join(""))).toBe(squash(`sql> ${query}`));
    await page.keyboard.press("Enter");
    await play.waitTurns(1);
    expect(readEpisode(app.dbPath, play.episodeId()).turns[0]?.action).toBe(query);
    await page.screenshot({ path: path.join(ARTIFACTS, "console-wrap.png") });
    await page.close();
  });

  it("lets the keyboard leave the editor: Escape goes to the console, Ctrl+M makes Tab move focus (both shown)", async () => {
    const page = await browser.browser.newPage();
    const play = new PlayPage(page, app.url);
    const task = loadDataset("demo-sql")[0]!;
    await play.open("sql", task.dataset, task.id);
    expect(await page.textContent('[data-testid="editor-keys"]')).toMatch(/Esc.*console.*Ctrl\+M.*Tab/);
    await page.waitForSelector('[data-testid="editor"][data-ready="1"] .monaco-editor');
    await page.click('[data-testid="editor"] .monaco-editor .view-lines');
    await page.keyboard.type("-- a note");
    expect(await focusInEditor(page)).toBe(true);
    await page.keyboard.press("Escape");
    expect(await focusInTerminal(page)).toBe(true);
    await page.keyboard.type("SELECT 7");
    await page.keyboard.press("Enter");
    await play.waitTurns(1);
    expect(readEpisode(app.dbPath, play.episodeId()).turns[0]).toMatchObject({ action: "SELECT 7", source: "console" });

    // Tab inside the editor indents; after Ctrl+M it moves focus out (Shift+Tab back the other way).
    await page.click('[data-testid="editor"] .monaco-editor .view-lines');
    await page.keyboard.press("Tab");
    expect(await focusInEditor(page)).toBe(true);
    await page.keyboard.press("Control+M");
    await page.keyboard.press("Tab");
    expect(await focusInEditor(page)).toBe(false);
    await page.click('[data-testid="editor"] .monaco-editor .view-lines');
    await page.keyboard.press("Shift+Tab");
    expect(await focusInEditor(page)).toBe(false);
    await page.close();
  });

  it("CTF: Enter in a wide flag field asks to confirm the one try, Cancel keeps playing, then the replay link", async () => {
    const page = await browser.browser.newPage();
    const play = new PlayPage(page, app.url);
    const task = loadDataset("demo-ctf").find((t) => t.env === "ctf")!;
    await play.open("ctf", task.dataset, task.id);
    await play.typeInConsole("ls");
    await play.waitTurns(1);
    const field = page.locator('input[aria-label="flag to submit"]');
    expect((await field.boundingBox())!.width).toBeGreaterThanOrEqual(240);
    expect(await page.textContent("#flag-hint")).toMatch(/ends the episode/);
    await field.fill("studio{wrong}");
    await field.press("Enter");
    await page.waitForSelector('[data-testid="submit-dialog"][open]');
    expect(await page.textContent('[data-testid="submit-dialog"]')).toMatch(/one try.*wrong flag scores 0.*studio\{wrong\}/s);
    await page.click('[data-testid="submit-dialog-cancel"]');
    await play.waitStatus("running");
    expect(await page.$('[data-testid="replay-link"]')).toBeNull();
    await field.press("Enter");
    await page.waitForSelector('[data-testid="submit-dialog"][open]');
    await page.keyboard.press("Enter"); // the confirm button has the focus
    expect(await play.reward()).toBe(0);
    const id = play.episodeId();
    expect(readEpisode(app.dbPath, id).episode).toMatchObject({ status: "submitted", reward: 0 });
    await page.click('[data-testid="replay-link"]');
    await page.waitForURL(new RegExp(`/episodes/${id}$`));
    await page.close();
  });

  it("drops a model's late reply after Take over: only the person's turns are stored", async () => {
    const task = loadDataset("demo-python")[0]!;
    if (task.env !== "python") throw new Error("expected a python task");
    scripted.setScript({ rules: [{ match: task.query, replies: ["```python\nprint('LATE-' + 'REPLY')\n```"] }], delayMs: 4000 });
    const before = scripted.requests.length;
    const page = await browser.browser.newPage();
    const agent = new AgentPage(page, app.url);
    await agent.open("python", task.dataset, task.id);
    await agent.start("scripted-demo", "try-again", 10);
    // The model has been asked and has not answered yet.
    for (let i = 0; i < 100 && scripted.requests.length === before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(scripted.requests.length).toBeGreaterThan(before);
    await agent.click("takeover");
    await agent.waitStatus("human");
    await new Promise((r) => setTimeout(r, 5000)); // the reply has come by now
    expect(await agent.turnCount()).toBe(0);
    await agent.runInEditor("print('MINE')");
    await agent.waitTurns(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(await agent.actors()).toEqual(["human"]);
    const text = await page.evaluate(() => document.querySelector('[data-testid="terminal"]')?.textContent ?? "");
    expect(text).not.toContain("LATE-REPLY");
    const { turns } = readEpisode(app.dbPath, await agent.episodeId());
    expect(turns.map((t) => [t.action, t.source])).toEqual([["print('MINE')", "editor"]]);
    await page.close();
  });
});
