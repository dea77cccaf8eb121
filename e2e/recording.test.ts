import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { ROOT } from "@/lib/testing/studio-server";
import { PlayPage } from "./pages/play-page";
import { applyEditorChange } from "@/lib/recording/events";

/**
 * A person's session recorded in the playground (console keys and output, editor changes, per
 * turn), downloaded as asciicast v2, and played back in the replay in step with the turns.
 */

const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");
const ARTIFACTS = path.join(ROOT, "e2e/artifacts");

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

function readChunks(id: string): { seq: number; turnIndex: number; events: [number, string, string][] }[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(`SELECT "seq", "turnIndex", "events" FROM "RecordingChunk" WHERE "episodeId" = ? ORDER BY "seq"`).all(id) as {
      seq: number;
      turnIndex: number;
      events: string;
    }[];
    return rows.map((r) => ({ ...r, events: JSON.parse(r.events) }));
  } finally {
    db.close();
  }
}

const playerConsole = (page: Page) =>
  page.evaluate(() => Array.from(document.querySelectorAll('[data-testid="recording-console"] .xterm-rows > div'), (d) => d.textContent ?? "").join("\n"));

describe("recording", () => {
  it("records a session in the playground, serves it as asciicast v2, and plays it back in the replay with the turns", async () => {
    const page = await browser.browser.newPage();
    const play = new PlayPage(page, baseUrl);
    const task = loadDataset("demo-bash").find((t) => typeof t.gold === "string" && !t.gold.includes("\n"))!;
    await play.open("bash", task.dataset, task.id);
    await play.typeInConsole("echo rec-one");
    await play.waitTurns(1);
    await play.runInEditor("echo rec-two");
    await play.waitTurns(2);
    await play.submit();
    const id = play.episodeId();

    // Stored per turn: the keys typed for turn 1, the editor's change for turn 2, the console's output.
    let chunks: ReturnType<typeof readChunks> = [];
    for (let i = 0; i < 50 && !chunks.some((c) => c.turnIndex >= 1); i++) {
      await page.waitForTimeout(200);
      chunks = readChunks(id);
    }
    const of = (turn: number, kind: string) =>
      chunks
        .filter((c) => c.turnIndex === turn)
        .flatMap((c) => c.events.filter((e) => e[1] === kind).map((e) => e[2]))
        .join("");
    expect(of(0, "i")).toBe("echo rec-one\r");
    expect(of(0, "o")).toContain("rec-one");
    const editorText = chunks.flatMap((c) => c.events.filter((e) => e[1] === "e")).reduce((text, e) => applyEditorChange(text, e[2]), "");
    expect(editorText).toBe("echo rec-two");
    expect(chunks.filter((c) => c.turnIndex === 1).some((c) => c.events.some((e) => e[1] === "e"))).toBe(true);
    expect(of(1, "o")).toContain("rec-two");
    // Times rise within a chunk.
    for (const c of chunks) for (let i = 1; i < c.events.length; i++) expect(c.events[i][0]).toBeGreaterThanOrEqual(c.events[i - 1][0]);

    const cast = await page.request.get(`${baseUrl}/api/episodes/${id}/recording.cast`);
    expect(cast.status()).toBe(200);
    expect(cast.headers()["content-type"]).toContain("application/x-asciicast");
    const [header, ...events] = (await cast.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(header).toMatchObject({ version: 2 });
    expect(header.width).toBeGreaterThan(20);
    for (const e of events) {
      expect(e).toHaveLength(3);
      expect(typeof e[0]).toBe("number");
      expect(["o", "i"]).toContain(e[1]);
    }
    expect(
      events
        .filter((e) => e[1] === "o")
        .map((e) => e[2])
        .join(""),
    ).toMatch(/rec-one[\s\S]*rec-two/);

    // The replay: the page itself does not carry the recording; the player loads it.
    const html = await (await page.request.get(`${baseUrl}/episodes/${id}`)).text();
    expect(html).not.toContain("echo rec-one\\r");
    await page.goto(`${baseUrl}/episodes/${id}?turn=1`);
    await page.waitForSelector('[data-testid="recording-player"]');
    await page.waitForSelector('[data-testid="recording-console"] .xterm-rows');
    const axe = await new AxeBuilder({ page: page as never })
      .include('[data-testid="recording-player"]')
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
      .analyze();
    expect(
      axe.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`),
    ).toEqual([]);

    // By keyboard: speed 8x, then Enter on play.
    await page.selectOption('[data-testid="recording-speed"]', "8");
    await page.focus('[data-testid="recording-play"]');
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="recording-player"][data-playing="1"]');
    await page.waitForFunction(
      () => /rec-one/.test(Array.from(document.querySelectorAll('[data-testid="recording-console"] .xterm-rows > div'), (d) => d.textContent ?? "").join("\n")),
      null,
      { timeout: 20_000 },
    );
    // The turn follows the playback: turn 2 is selected when its part plays.
    await page.waitForFunction(
      () => /rec-two/.test(Array.from(document.querySelectorAll('[data-testid="recording-console"] .xterm-rows > div'), (d) => d.textContent ?? "").join("\n")),
      null,
      { timeout: 20_000 },
    );
    await page.waitForSelector('[data-testid="turn"][data-index="1"][data-current="1"]', { timeout: 10_000 });
    expect(await page.textContent('[data-testid="recording-editor"]')).toContain("echo rec-two");
    await page.waitForSelector('[data-testid="recording-player"][data-playing="0"]', { timeout: 20_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, "recording-playback.png"), fullPage: true });

    // Jump to turn 1: the console goes back to that turn's start and the replay selects it.
    await page.selectOption('[data-testid="recording-turn"]', "0");
    await page.waitForSelector('[data-testid="turn"][data-index="0"][data-current="1"]');
    await page.waitForFunction(
      () =>
        !/rec-two/.test(Array.from(document.querySelectorAll('[data-testid="recording-console"] .xterm-rows > div'), (d) => d.textContent ?? "").join("\n")),
    );
    // Picking turn 2 in the replay moves the player there (and pause stays paused).
    await page.click('[data-testid="turn"][data-index="1"]');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="recording-player"]')?.getAttribute("data-clock")) > 0);
    // Drawn up to the start of turn 2: turn 1's output (xterm draws asynchronously).
    await page.waitForFunction(
      () => /rec-one/.test(Array.from(document.querySelectorAll('[data-testid="recording-console"] .xterm-rows > div'), (d) => d.textContent ?? "").join("\n")),
      null,
      { timeout: 10_000 },
    );
    expect(await playerConsole(page)).not.toContain("rec-two\n");
    expect(await page.getAttribute('[data-testid="recording-player"]', "data-playing")).toBe("0");
    await page.close();
  });
});
