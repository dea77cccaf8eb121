import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { freePort } from "@/lib/testing/studio-server";
import { connectWs } from "@/lib/testing/ws-client";
import { launchBrowser } from "@/lib/testing/browser";
import { AgentPage } from "./pages/agent-page";
import { PlayPage } from "./pages/play-page";
import { SitePage } from "./pages/site-page";
import { ROOT } from "@/lib/testing/studio-server";
import { readEpisode } from "./store";

// Issue 14, the playground, navigation and studies half: each test below fails on the code before
// it (no chip, no table, no words, no 404 page, no links...). One shared server and one browser;
// the pages end up as 1440×900 screenshots in e2e/artifacts/after/.

const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");
const SHOTS = path.join(ROOT, "e2e/artifacts/after");
const RUN = Date.now().toString(36);

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function newPage(): Promise<{ page: Page; play: PlayPage; site: SitePage; dialogs: string[] }> {
  const page = await browser.browser.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const dialogs: string[] = [];
  // window.prompt/alert/confirm would show up here: the pages must not use them.
  page.on("dialog", (d) => {
    dialogs.push(d.type());
    void d.dismiss();
  });
  return { page, play: new PlayPage(page, baseUrl), site: new SitePage(page, baseUrl), dialogs };
}

/** How many stored episodes a task has. */
function storedCount(env: string, dataset: string, taskId: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM "Episode" WHERE environment = ? AND dataset = ? AND taskId = ?`).get(env, dataset, taskId) as { n: number })
      .n;
  } finally {
    db.close();
  }
}

const SQL = loadDataset("demo-sql");
const sqlGold = (id: string) => SQL.find((t) => t.id === id)!.gold as string;

describe("issue 14: the playground, navigation and studies", () => {
  it("item 9: the header links every section; /tasks lists the datasets, /tasks/<env> a dataset's tasks; a task page links the agent view", async () => {
    const { page, play, site } = await newPage();
    expect(await site.visit("/play")).toBe(200);
    expect(await site.navLinks()).toEqual([
      ["Play", "/play"],
      ["Episodes", "/episodes"],
      ["Studies", "/play/studies"],
      ["Stats", "/episodes/stats"],
      ["Compare", "/compare"],
      ["Failures", "/failures"],
      ["Models", "/models"],
      ["Runs", "/runs"],
      ["Scanners", "/scans"],
    ]);
    expect(await page.getAttribute('[data-testid="site-nav"] a[aria-current="page"]', "href")).toBe("/play");
    await site.screenshot(SHOTS, "play-list");

    expect(await site.visit("/tasks")).toBe(200);
    expect(await page.textContent('[data-testid="datasets-sql"]')).toContain("demo-sql");
    await site.screenshot(SHOTS, "tasks");
    expect(await site.visit("/tasks/sql?dataset=demo-sql")).toBe(200);
    const rows = await page.locator('[data-testid="dataset-tasks"] tbody tr').count();
    expect(rows).toBe(SQL.length);
    expect(await page.getAttribute('[data-testid="dataset-tasks"] tbody tr:first-child a:has-text("play")', "href")).toBe(
      `/play/sql/${encodeURIComponent(`demo-sql:${SQL[0].id}`)}`,
    );
    await site.screenshot(SHOTS, "tasks-sql");

    await play.open("sql", "demo-sql", SQL[0].id);
    const agentHref = await page.getAttribute('[data-testid="agent-link"]', "href");
    expect(agentHref).toMatch(/agent=1/);
    await page.click('[data-testid="agent-link"]');
    await page.waitForSelector('[data-testid="agent-view"]');
    await page.close();
  });

  it("item 5: opening a task stores nothing; the chip follows the episode (not the connection) through running, abandoned and submitted", async () => {
    const { page, play, dialogs } = await newPage();
    const task = SQL[5];
    const before = storedCount("sql", "demo-sql", task.id);
    await play.open("sql", "demo-sql", task.id);
    expect(await play.status()).toBe("ready");
    await page.waitForTimeout(1000);
    expect(storedCount("sql", "demo-sql", task.id)).toBe(before);
    expect(play.episodeId()).toBe("");

    await play.typeInConsole("SELECT 1");
    await play.waitTurns(1);
    await play.waitStatus("running");
    const id = play.episodeId();
    expect(id).not.toBe("");
    expect(storedCount("sql", "demo-sql", task.id)).toBe(before + 1);

    await play.abandon("checking the chip");
    await play.waitStatus("abandoned");
    expect(await page.textContent('[data-testid="connection"]')).toBe("open");
    expect(readEpisode(dbPath, id).episode?.status).toBe("abandoned");
    expect(dialogs).toEqual([]);

    await page.click('button:has-text("Restart")');
    await play.waitStatus("ready");
    await play.typeInConsole(sqlGold(task.id));
    await play.waitTurns(1);
    expect(await play.submit()).toBe(1);
    await play.waitStatus("submitted");
    await page.close();
  });

  it("items 1 and 2: the SQL panel says what submit scores; a result prints as a boxed table with its column names, while the store keeps InterCode's text", async () => {
    const { page, play, site } = await newPage();
    const task = SQL[1];
    await play.open("sql", "demo-sql", task.id);
    expect(await page.textContent('[data-testid="scoring-rule"]')).toMatch(/result set of your last query/);
    await play.typeInConsole("SELECT name, district FROM stations ORDER BY name LIMIT 2");
    await play.waitTurns(1);
    await play.waitConsole(/\+-+\+-+\+/);
    await play.waitConsole(/\| name +\| district +\|/);
    await play.waitConsole(/2 rows in set/);
    const { turns } = readEpisode(dbPath, play.episodeId());
    expect(turns[0].observation).toMatch(/^\('/);
    expect(turns[0].observation).not.toContain("|");

    // The gold query, then one more look: the last query is what is scored.
    await play.typeInConsole(sqlGold(task.id));
    await play.waitTurns(2);
    await play.typeInConsole("SELECT count(*) AS n FROM stations");
    await play.waitTurns(3);
    expect(await play.submit()).toBeLessThan(1);
    const rowsPart = (await page.textContent('[data-testid="breakdown-part"][data-part="overlap"]')) ?? "";
    expect(rowsPart).toMatch(/^rows 0\.\d\d — .*last result/);
    await site.screenshot(SHOTS, "play-task-sql");
    await page.close();
  });

  it("item 1: a bash breakdown names each part and what it measures", async () => {
    const { page, play } = await newPage();
    const task = loadDataset("demo-bash")[0];
    await play.open("bash", task.dataset, task.id);
    expect(await page.textContent('[data-testid="scoring-rule"]')).toMatch(/files you changed.*last command/);
    await play.typeInConsole("echo not-the-answer");
    await play.waitTurns(1);
    await play.submit();
    const parts = await page.$$eval('[data-testid="breakdown-part"]', (els) => els.map((e) => e.textContent ?? ""));
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(/^file changes 0\.\d\d — .*changed by only one/);
    expect(parts[1]).toMatch(/^file contents 0\.\d\d — /);
    expect(parts[2]).toMatch(/^output 0\.\d\d — .*last output/);
    await page.close();
  });

  it("item 3: python tests are shown verbatim, spaces kept, with pass or fail for each", async () => {
    const { page, play } = await newPage();
    await play.open("python", "demo-python", "reverse-words");
    expect(await page.textContent('[data-testid="scoring-rule"]')).toMatch(/hidden tests/);
    // Splitting on one space keeps the empty words of '  a   b ': that test fails, the others pass.
    await play.runInEditor("def reverse_words(s):\n    return ' '.join(reversed(s.split(' ')))\n");
    await play.waitTurns(1);
    await play.submit();
    const tests = page.locator('[data-testid="python-test"]');
    expect(await tests.count()).toBe(3);
    const failing = page.locator('[data-testid="python-test"][data-agree="0"]');
    expect(await failing.count()).toBe(1);
    expect(await failing.locator('[data-testid="python-test-agent"]').textContent()).toBe("fail");
    const source = failing.locator('[data-testid="python-test-source"]');
    // innerText is what is rendered: collapsed spaces would show as ' a b '.
    expect(await source.evaluate((e) => (e as HTMLElement).innerText)).toContain("'  a   b '");
    expect(await source.evaluate((e) => getComputedStyle(e).whiteSpace)).toBe("pre");
    await page.close();
  });

  it("item 4: a model run that cannot reach its endpoint says why on the page", async () => {
    const port = await freePort(); // nothing listens there: connection refused
    const id = `e2e-unreachable-${RUN}`;
    const added = await fetch(`${baseUrl}/api/models`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "openai-compatible", model: "nobody", baseURL: `http://127.0.0.1:${port}/v1`, id }),
    });
    expect(added.status, await added.clone().text()).toBe(201);
    const { page } = await newPage();
    const agent = new AgentPage(page, baseUrl);
    const task = SQL[2];
    await agent.open("sql", task.dataset, task.id);
    await agent.start(id, "try-again", 2);
    const banner = await page.waitForSelector('[data-testid="run-error"]', { timeout: 90_000 });
    expect(await banner.textContent()).toMatch(/ECONNREFUSED|refused|connect/i);
    await page.close();
  });

  it("item 6: unknown task, dataset, study and episode ids give a themed 404 that names them; a sealed task shows who holds the seal and no console", async () => {
    const { page, site } = await newPage();
    expect(await site.visit(`/play/sql/${encodeURIComponent("demo-sql:no-such-task")}`)).toBe(404);
    const task = await site.notFound();
    expect(task?.heading).toBe("Task not found");
    expect(task?.detail).toMatch(/“no-such-task”.*“demo-sql”/);
    expect(task?.links).toContain("/tasks/sql?dataset=demo-sql");
    await site.screenshot(SHOTS, "not-found-task");
    expect(await site.visit("/tasks/sql?dataset=no-such-set")).toBe(404);
    expect((await site.notFound())?.detail).toContain("no-such-set");
    expect(await site.visit("/episodes/no-such-episode")).toBe(404);
    expect((await site.notFound())?.detail).toContain("no-such-episode");
    expect(await site.visit("/play/study/no-such-study")).toBe(404);
    expect((await site.notFound())?.detail).toContain("no-such-study");
    expect(await site.visit("/nowhere-at-all")).toBe(404);
    expect((await site.notFound())?.heading).toBe("Page not found");
    // Readable: the detail's colour is light on the dark page.
    expect(await page.$eval('[data-testid="not-found-detail"]', (e) => getComputedStyle(e).color)).not.toBe("rgb(0, 0, 0)");

    // A baseline episode takes a turn on a task: the task is sealed until it is submitted.
    const ref = "demo-sql:" + SQL[3].id;
    const ws = await connectWs(baseUrl);
    try {
      ws.send({ type: "open", env: "sql", taskRef: ref, mode: "baseline", feedback: "none", annotator: `sealer-${RUN}` });
      const opened = await ws.next("opened");
      ws.send({ type: "action", text: "SELECT 1", source: "console" });
      await ws.next("turnEnd");
      for (const q of ["", "?agent=1"]) {
        expect(await site.visit(`/play/sql/${encodeURIComponent(ref)}${q}`)).toBe(200);
        await page.waitForSelector('[data-testid="sealed-task"]');
        expect(await page.getAttribute('[data-testid="sealed-by"]', "href")).toBe(`/episodes/${opened.episode.id}`);
        expect(await page.textContent('[data-testid="sealed-task"]')).toContain(`sealer-${RUN}`);
        expect(await page.locator('[data-testid="terminal"]').count()).toBe(0);
      }
      await site.screenshot(SHOTS, "sealed-task");
    } finally {
      // Lift the seal: other tests share the server.
      ws.send({ type: "submit" });
      await ws.next(["submitted", "error"]);
      ws.close();
    }
    expect(await site.visit(`/play/sql/${encodeURIComponent(ref)}`)).toBe(200);
    await page.waitForSelector('[data-testid="terminal"]');
    await page.close();
  });

  it("item 10: ids do not wrap, no emoji, one date format, dialogs instead of prompts, and a message for an empty name or an import with no file", async () => {
    const { page, site, dialogs } = await newPage();
    await site.visit("/play?env=bash");
    expect(await page.$eval('[data-testid="task-list"] tbody tr td', (e) => getComputedStyle(e).whiteSpace)).toBe("nowrap");
    expect(await page.locator('[data-testid="random-task"] svg').count()).toBe(1);
    expect(await page.evaluate(() => /\p{Extended_Pictographic}/u.test(document.body.innerText))).toBe(false);

    await site.visit("/episodes");
    const dates = await page.$$eval('[data-testid="episode-row"] td', (tds) => tds.map((t) => t.textContent ?? "").filter((t) => /\d{4}-\d\d-\d\d/.test(t)));
    expect(dates.length).toBeGreaterThan(0);
    for (const d of dates) expect(d).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await page.click('[data-testid="import-button"]');
    expect(await page.textContent('[data-testid="import-error"]')).toMatch(/Choose one or more log files/);

    // A baseline page in a browser that has no name yet.
    await page.evaluate(() => window.localStorage.removeItem("icstudio.annotator"));
    await site.visit(`/play/sql/${encodeURIComponent(`demo-sql:${SQL[6].id}`)}?mode=baseline`);
    await page.click('button:has-text("Start")');
    expect(await page.textContent('[data-testid="annotator-error"]')).toMatch(/name/);
    await page.fill('[data-testid="annotator"]', `ann-${RUN}`);
    await page.click('button:has-text("Start")');
    const play = new PlayPage(page, baseUrl);
    await play.waitReady();
    expect(await page.locator('[data-testid="clock"] svg').count()).toBe(1);
    await play.typeInConsole("SELECT 2");
    await play.waitTurns(1);
    await play.abandon("leaving it");
    await play.waitStatus("abandoned");
    expect(dialogs).toEqual([]);

    // Rotated chart labels stay inside their chart.
    await site.visit("/episodes/stats");
    const chart = page.locator('[data-testid="chart-success"] svg.recharts-surface');
    await chart.waitFor();
    const clipped = await chart.evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      return Array.from(svg.querySelectorAll(".recharts-xAxis .recharts-cartesian-axis-tick text"))
        .map((t) => t.getBoundingClientRect())
        .filter((r) => r.bottom > box.bottom + 1 || r.left < box.left - 1).length;
    });
    expect(clipped).toBe(0);
    await site.screenshot(SHOTS, "stats");
    await page.close();
  });

  it("studies: a results page per study (per annotator: done, success, mean reward, time on task) and progress in the list", async () => {
    const { page, site } = await newPage();
    const res = await fetch(`${baseUrl}/api/studies`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: `results ${RUN}`,
        env: "sql",
        dataset: "demo-sql",
        selection: { kind: "slice", from: 16, count: 2 },
        feedback: "none",
        turnLimit: 3,
      }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const annotator = `res-${RUN}`;
    // The annotator works the study's first task (as the task page does) and submits gold.
    const first = SQL[16];
    const ws = await connectWs(baseUrl);
    ws.send({ type: "open", env: "sql", taskRef: `demo-sql:${first.id}`, mode: "baseline", feedback: "none", annotator, studyId: id });
    await ws.next("opened");
    ws.send({ type: "action", text: sqlGold(first.id), source: "console" });
    await ws.next("turnEnd");
    ws.send({ type: "submit" });
    expect((await ws.next("submitted")).reward).toBe(1);
    ws.close();

    await site.visit("/play/studies");
    const row = page.locator("tr", { hasText: `results ${RUN}` });
    expect(await row.locator('[data-testid="study-progress-cell"]').textContent()).toContain(`${annotator} 1/2`);
    await site.screenshot(SHOTS, "studies");
    await row.locator('[data-testid="study-results-link"]').click();
    await page.waitForSelector('[data-testid="study-results"]');
    const result = page.locator(`[data-testid="study-result"][data-annotator="${annotator}"]`);
    expect(await result.locator('[data-testid="study-done"]').textContent()).toBe("1 / 2");
    // The study is open: its outcomes are sealed until the owner's logged reveal.
    expect(await result.locator('[data-testid="study-mean-reward"]').textContent()).toBe("sealed");
    await page.click('[data-testid="reveal"]');
    await page.waitForSelector('[data-testid="study-result"] [data-testid="study-mean-reward"]:has-text("1.00")');
    expect(await result.locator('[data-testid="study-solved"]').textContent()).toBe("1 / 1");
    expect(await result.locator('[data-testid="study-active"]').textContent()).toMatch(/^\d+:\d\d$/);
    await site.screenshot(SHOTS, "study-results");
    // Closed, its tasks are no longer sealed for the other tests sharing the server.
    expect((await fetch(`${baseUrl}/api/studies/${id}/close`, { method: "POST" })).status).toBe(200);
    await page.close();
  });
});
