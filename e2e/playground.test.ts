import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { launchBrowser } from "@/lib/testing/browser";
import { PlayPage } from "./pages/play-page";
import { ROOT } from "@/lib/testing/studio-server";
import { readEpisode } from "./store";

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

/** A fresh page that records every request it makes (HTTP and websocket). */
async function newPage(): Promise<{ page: Page; play: PlayPage; foreign: () => string[] }> {
  const page = await browser.browser.newPage();
  const own = new URL(baseUrl).host;
  const seen: string[] = [];
  page.on("request", (r) => seen.push(r.url()));
  page.on("websocket", (ws) => seen.push(ws.url()));
  const foreign = () =>
    seen.filter((u) => {
      if (u.startsWith("data:") || u.startsWith("blob:")) return false;
      try {
        return new URL(u).host !== own;
      } catch {
        return true;
      }
    });
  return { page, play: new PlayPage(page, baseUrl), foreign };
}

/** The first task of a demo set whose gold is one line (typed in the console). */
function oneLineTask(dataset: string): Task {
  const t = loadDataset(dataset).find((x) => typeof x.gold === "string" && !x.gold.includes("\n"));
  if (!t) throw new Error(`${dataset} has no task with a one-line gold solution`);
  return t;
}

function goldOf(t: Task): string {
  return Array.isArray(t.gold) ? t.gold.join(" && ") : t.gold;
}

describe("playground", () => {
  it("solves a python task from the editor, submits from the console, and stores every turn", async () => {
    const { page, play, foreign } = await newPage();
    const task = loadDataset("demo-python")[0];
    await play.open("python", task.dataset, task.id);
    // The hidden tests are never on the page before submit.
    const html = await page.content();
    if (task.env === "python") for (const test of task.tests) expect(html).not.toContain(test);
    await play.runInEditor(goldOf(task));
    await play.waitTurns(1);
    await play.typeInConsole("submit");
    expect(await play.reward()).toBe(1);
    expect(await play.breakdown()).toMatch(/tests \d+ \/ \d+ — .*same/);
    expect(await play.gold()).toContain(goldOf(task).split("\n")[0]);
    await page.screenshot({ path: path.join(ARTIFACTS, "python.png") });

    const { episode, turns } = readEpisode(dbPath, play.episodeId());
    expect(episode?.status).toBe("submitted");
    expect(episode?.reward).toBe(1);
    // Monaco may re-indent typed lines; compare the code's tokens.
    const squash = (x: string) => x.replace(/\s+/g, " ").trim();
    expect(turns.map((t) => squash(t.action))).toEqual([squash(goldOf(task)), "submit"]);
    expect(turns[0].source).toBe("editor");
    expect(foreign()).toEqual([]);
    await page.close();
  });

  it("solves a bash task typed in the console and submitted with the button", async () => {
    const { page, play, foreign } = await newPage();
    const task = oneLineTask("demo-bash");
    await play.open("bash", task.dataset, task.id);
    await page.waitForSelector('[data-testid="tree"]');
    await play.typeInConsole(goldOf(task));
    await play.waitTurns(1);
    expect(await play.submit()).toBe(1);
    expect(await play.breakdown()).toMatch(/file changes .*file contents .*output/);
    await page.screenshot({ path: path.join(ARTIFACTS, "bash.png") });
    const { episode, turns } = readEpisode(dbPath, play.episodeId());
    expect(episode?.reward).toBe(1);
    expect(turns.map((t) => t.action)).toEqual([goldOf(task), "submit"]);
    expect(turns[0].source).toBe("console");
    expect(foreign()).toEqual([]);
    await page.close();
  });

  it("solves an sql task typed in the console", async () => {
    const { page, play, foreign } = await newPage();
    const task = oneLineTask("demo-sql");
    await play.open("sql", task.dataset, task.id);
    await page.waitForSelector('[data-testid="schema"]');
    await play.typeInConsole(goldOf(task));
    await play.waitTurns(1);
    expect(await play.submit()).toBe(1);
    expect(await play.breakdown()).toMatch(/rows 1\.00 — /);
    await page.screenshot({ path: path.join(ARTIFACTS, "sql.png") });
    const { episode, turns } = readEpisode(dbPath, play.episodeId());
    expect(episode?.reward).toBe(1);
    expect(turns).toHaveLength(2);
    expect(foreign()).toEqual([]);
    await page.close();
  });

  it("captures a CTF flag: finds it in the console, submits it in the flag box, reward 1.0", async () => {
    const { page, play, foreign } = await newPage();
    const task = loadDataset("demo-ctf").find((t) => t.env === "ctf" && t.files && t.solution && !t.solution.includes("\n"));
    if (task?.env !== "ctf") throw new Error("demo-ctf has no task with files and a one-line solution");
    const flag = task.gold as string;
    await play.open("ctf", task.dataset, task.id);
    // The flag is nowhere on the page before the player finds it.
    expect(await page.evaluate(() => document.body.innerText + Array.from(document.scripts, (s) => s.textContent ?? "").join("\n"))).not.toContain(flag);
    await play.typeInConsole(task.solution!);
    await play.waitTurns(1);
    await play.waitConsole(new RegExp(flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    await page.fill('input[aria-label="flag to submit"]', flag);
    expect(await play.submit()).toBe(1);
    expect(await play.breakdown()).toMatch(/flag matches/);
    await page.screenshot({ path: path.join(ARTIFACTS, "ctf.png") });
    const { episode, turns } = readEpisode(dbPath, play.episodeId());
    expect(episode).toMatchObject({ status: "submitted", reward: 1, environment: "ctf" });
    expect(turns.map((t) => t.action)).toEqual([task.solution, `submit ${flag}`]);
    expect(foreign()).toEqual([]);

    // A wrong flag typed in the console scores 0.
    await play.open("ctf", task.dataset, task.id);
    await play.typeInConsole("submit studio{not_the_flag}");
    expect(await play.reward()).toBe(0);
    expect(await play.breakdown()).toMatch(/does not match/);
    expect(readEpisode(dbPath, play.episodeId()).episode?.reward).toBe(0);
    await page.close();
  });

  it("gives a wrong answer its lower reward and breakdown (sql and bash)", async () => {
    const { page, play } = await newPage();
    const sql = oneLineTask("demo-sql");
    await play.open("sql", sql.dataset, sql.id);
    await play.typeInConsole("SELECT 12345");
    await play.waitTurns(1);
    const r = await play.submit();
    expect(r).toBeLessThan(1);
    expect(await play.breakdown()).toMatch(/rows 0\.00 — /);
    expect(readEpisode(dbPath, play.episodeId()).episode?.reward).toBe(r);

    const bash = oneLineTask("demo-bash");
    await play.open("bash", bash.dataset, bash.id);
    await play.typeInConsole("echo something-else");
    await play.waitTurns(1);
    const rb = await play.submit();
    expect(rb).toBeLessThan(1);
    expect(await play.breakdown()).toMatch(/output 0\.\d\d/);
    await page.close();
  });

  it("resumes the episode after a reload, with its sandbox state and turns", async () => {
    const { page, play } = await newPage();
    const task = loadDataset("demo-python")[0];
    await play.open("python", task.dataset, task.id);
    await play.typeInConsole("secret = 41");
    await play.waitTurns(1);
    const id = play.episodeId();
    await page.reload();
    await play.waitReady();
    expect(play.episodeId()).toBe(id);
    expect(await play.turnsText()).toMatch(/turns 1 \//);
    await play.waitConsole(/secret = 41/);
    await play.typeInConsole("print(secret + 1)");
    await play.waitTurns(2);
    await play.waitConsole(/^42\s*$/m);
    expect(readEpisode(dbPath, id).turns.map((t) => t.action)).toEqual(["secret = 41", "print(secret + 1)"]);
    await page.close();
  });

  it("stops an endless action with Ctrl+C and goes on", async () => {
    const { page, play } = await newPage();
    const task = oneLineTask("demo-bash");
    await play.open("bash", task.dataset, task.id);
    const t0 = Date.now();
    await play.typeInConsole("while true; do sleep 0.1; done");
    await page.waitForSelector('[data-testid="busy"]');
    await page.waitForTimeout(500);
    await page.keyboard.press("Control+C");
    await play.waitTurns(1, 8000);
    expect(Date.now() - t0).toBeLessThan(8000);
    await play.typeInConsole("echo still-alive");
    await play.waitTurns(2);
    await play.waitConsole(/^still-alive\s*$/m);
    const { turns } = readEpisode(dbPath, play.episodeId());
    expect(turns).toHaveLength(2);
    await page.close();
  });
});
