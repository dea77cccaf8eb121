import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { loadDataset } from "@/lib/datasets/registry";
import { goldScript } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { launchBrowser } from "@/lib/testing/browser";
import { ROOT, startServer, type RunningServer } from "@/lib/testing/studio-server";
import { PlayPage } from "./pages/play-page";

// A whole study with people the owner does not trust with the server: a study of three SQL tasks
// sealed from its creation (a model run's rewards on them hidden in every place that showed
// them, a new model run refused), two participants in separate browsers with invite links
// (balanced order, consent, the active-time clock and its idle pause, a skip, the completion
// code), then the owner's results behind a logged reveal. Its own server: a short idle time, and
// its studies seal nothing for the other files.

const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
const SQL = loadDataset("demo-sql");
const TASKS = [SQL[20], SQL[21], SQL[22]];
const goldOf = (id: string) => String(SQL.find((t) => t.id === id)!.gold);

let server: RunningServer;
let scripted: ScriptedServer;
let owner: Awaited<ReturnType<typeof launchBrowser>>;
const people: Awaited<ReturnType<typeof launchBrowser>>[] = [];
let studyId = "";
let runId = "";

/** `icstudio` on the server's store (a child process: the scripted model answers from this one meanwhile). */
function icstudio(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "lib/cli/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, IC_DB: server.dbPath, IC_SANDBOX: "local" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const api = (p: string, init?: RequestInit) => fetch(`${server.url}${p}`, init);
const postJson = (p: string, body: unknown) => api(p, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

beforeAll(async () => {
  scripted = await startScriptedServer({ rules: [] });
  fs.mkdirSync(path.join(ROOT, "var"), { recursive: true });
  const models = path.join(fs.mkdtempSync(path.join(ROOT, "var", "e2e-models-")), "models.json");
  fs.writeFileSync(
    models,
    JSON.stringify({
      models: [
        {
          id: "scripted-demo",
          provider: "openai-compatible",
          model: "scripted",
          baseURL: scripted.baseURL,
          contextWindow: 32768,
          price: { inputPerMtok: 0, outputPerMtok: 0 },
        },
      ],
    }),
  );
  server = await startServer({ IC_STUDY_IDLE_MS: "3000", IC_MODELS_CONFIG: models });
  owner = await launchBrowser();
}, 300_000);
afterAll(async () => {
  for (const p of people) await p.close();
  await owner?.close();
  await scripted?.close();
  await server?.stop();
});

describe("the study seal", () => {
  it("hides a model run's rewards on the study's tasks in the run page, its CSV, /episodes, the task page and the compare picker, and refuses a new run", {
    timeout: 300_000,
  }, async () => {
    // A model solves the three tasks before the study exists (imports and earlier runs make no seal).
    scripted.setScript(goldScript("try-again", TASKS));
    const ran = await icstudio([
      "eval",
      "--env",
      "sql",
      "--dataset",
      "demo-sql",
      "--tasks",
      TASKS.map((t) => t.id).join(","),
      "--base-url",
      scripted.baseURL,
      "--api-key",
      "k",
      "--run",
      "before-study",
      "--json",
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ episodes: 3, solved: 3 });
    runId = ((await (await api("/api/runs")).json()) as { runs: { id: string; name: string }[] }).runs.find((r) => r.name === "before-study")!.id;
    const before = await (await api(`/api/runs/${runId}/export?format=csv`)).text();
    expect(before).toMatch(/,submitted,1,true,/);

    const made = await icstudio([
      "studies",
      "create",
      "--name",
      "three sql",
      "--env",
      "sql",
      "--dataset",
      "demo-sql",
      "--tasks",
      "20,21,22",
      "--assign",
      "balanced",
      "--feedback",
      "none",
      "--instructions",
      "Write one SQL query per task.",
      "--json",
    ]);
    expect(made.code, made.stderr).toBe(0);
    studyId = (JSON.parse(made.stdout) as { id: string }).id;

    const page = await owner.browser.newPage();
    // 1. The run page: no reward, no tick, no solved count.
    await page.goto(`${server.url}/runs/${runId}`);
    await page.waitForSelector('[data-testid="run-task"]');
    expect(await page.locator('[data-testid="run-task-reward"]').allTextContents()).toEqual(["sealed", "sealed", "sealed"]);
    expect(await page.locator('[data-testid="run-task"]').allTextContents()).not.toContain("✓");
    expect(await page.textContent('[data-testid="run-solved"]')).toMatch(/0/);
    // 2. The run's CSV.
    const csv = await (await api(`/api/runs/${runId}/export?format=csv`)).text();
    expect(csv).not.toMatch(/,submitted,1,/);
    expect(
      csv
        .trim()
        .split(/\r?\n/)
        .slice(1)
        .every((l) => l.endsWith(",true")),
    ).toBe(true);
    // 3. The /episodes list (page and API).
    const list = (await (await api("/api/episodes?env=sql")).json()) as { rows: { id: string; taskId: string; reward: number | null; sealed?: boolean }[] };
    const onStudy = list.rows.filter((r) => TASKS.some((t) => t.id === r.taskId));
    expect(onStudy).toHaveLength(3);
    expect(onStudy.every((r) => r.reward === null && r.sealed)).toBe(true);
    await page.goto(`${server.url}/episodes?env=sql`);
    await page.waitForSelector('[data-testid="total"]');
    expect(await page.locator("table").innerText()).not.toMatch(/1\.00/);
    // 4. The task page.
    await page.goto(`${server.url}/tasks/sql/${encodeURIComponent(`demo-sql:${TASKS[0].id}`)}`);
    await page.waitForSelector('[data-testid="task-player"]');
    expect(await page.locator('[data-testid="reward-sealed"]').count()).toBe(1);
    expect(await page.locator('[data-testid="task-player"]').innerText()).not.toMatch(/1\.00|solved/);
    // 5. The compare picker.
    await page.goto(`${server.url}/compare?task=${encodeURIComponent(TASKS[0].id)}`);
    await page.waitForSelector("table");
    expect(await page.locator("table").innerText()).not.toMatch(/1\.00/);
    // The episode itself (its gold and reward) is sealed too.
    await page.goto(`${server.url}/episodes/${onStudy[0].id}`);
    await page.waitForSelector('[data-testid="sealed"]');
    expect(await page.textContent('[data-testid="sealed"]')).toMatch(/open study "three sql"/);
    await page.close();

    // A model run on a sealed task is refused before it starts, naming task and study: the API and the CLI.
    const refused = await postJson("/api/runs", {
      env: "sql",
      dataset: "demo-sql",
      selection: { kind: "list", tasks: [TASKS[1].id] },
      model: "scripted-demo",
      policy: "try-again",
      turns: 3,
      concurrency: 1,
    });
    const body = (await refused.json()) as { error: { message: string } };
    expect(refused.status, JSON.stringify(body)).toBe(409);
    expect(body.error.message).toMatch(new RegExp(`task demo-sql:${TASKS[1].id} \\(sql\\) is sealed by the open study "three sql"`));
    const cli = await icstudio([
      "eval",
      "--env",
      "sql",
      "--dataset",
      "demo-sql",
      "--tasks",
      TASKS[2].id,
      "--base-url",
      scripted.baseURL,
      "--api-key",
      "k",
      "--run",
      "during-study",
      "--json",
    ]);
    expect(cli.code).toBe(5);
    expect(cli.stderr).toMatch(new RegExp(`task demo-sql:${TASKS[2].id} \\(sql\\) is sealed by the open study "three sql"`));
  });
});

/** A participant's browser page: the landing page's steps and the play page. */
async function workTask(page: Page, how: { kind: "submit" } | { kind: "skip"; reason: string }, idlePause = false): Promise<string> {
  await page.waitForSelector('[data-testid="next-task"]');
  await page.click('[data-testid="next-task"]');
  const play = new PlayPage(page, server.url);
  await play.waitReady();
  const taskId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!).split(":")[1];
  // No navigation away from the study, no model view, no annotator name to choose.
  expect(await page.locator('[data-testid="site-nav"]').count()).toBe(0);
  expect(await page.locator('[data-testid="annotator"]').count()).toBe(0);
  await page.waitForSelector('[data-testid="study-clock"]');
  if (how.kind === "skip") {
    await page.click('[data-testid="skip"]:not([disabled])');
    await page.fill('[data-testid="skip-dialog-reason"]', how.reason);
    await page.click('[data-testid="skip-dialog-confirm"]');
    await page.waitForURL(/\/play\/study\//);
    return taskId;
  }
  await play.typeInConsole("SELECT 1");
  await play.waitTurns(1);
  // The clock runs while the person is active...
  await page.mouse.move(200, 200);
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="study-clock"]')?.getAttribute("data-active-ms")) >= 1000, undefined, {
    timeout: 20_000,
  });
  if (idlePause) {
    // ...and pauses, on screen, once they are idle past IC_STUDY_IDLE_MS (3 s here).
    await page.waitForSelector('[data-testid="study-clock"][data-idle="1"]', { timeout: 15_000 });
    expect(await page.textContent('[data-testid="study-clock"]')).toMatch(/paused \(idle\)/);
    const paused = Number(await page.getAttribute('[data-testid="study-clock"]', "data-active-ms"));
    await page.waitForTimeout(2500);
    expect(Number(await page.getAttribute('[data-testid="study-clock"]', "data-active-ms"))).toBeLessThanOrEqual(paused + 1000);
  }
  await play.typeInConsole(goldOf(taskId));
  await play.waitTurns(2);
  await page.click('[data-testid="submit"]:not([disabled])');
  // Feedback "none": the participant hears that it is stored, not how it scored, and no gold.
  await page.waitForSelector('[data-testid="reward-hidden"]');
  expect(await page.locator('[data-testid="gold"]').count()).toBe(0);
  const text = await page.evaluate(() => document.body.innerText);
  expect(text).not.toContain(goldOf(taskId));
  await page.click('[data-testid="next"]');
  await page.waitForURL(/\/play\/study\//);
  return taskId;
}

describe("a study with two participants", () => {
  it("invites by link, balanced order, consent, the clock and its idle pause, a skip, the completion code; the owner reads the results", {
    timeout: 600_000,
  }, async () => {
    expect(studyId).not.toBe("");
    // The owner makes two invite links on the study's page.
    const ownerPage = await owner.browser.newPage();
    await ownerPage.goto(`${server.url}/play/study/${studyId}/results`);
    await ownerPage.fill('[data-testid="invite-count"]', "2");
    await ownerPage.click('[data-testid="make-invites"]');
    await ownerPage.waitForSelector('[data-testid="invite-url"]');
    const urls = (await ownerPage.locator('[data-testid="invite-url"]').allTextContents()).map((t) => t.split(" ")[1]);
    expect(urls).toHaveLength(2);
    expect(await ownerPage.locator('[data-testid="participant-row"]').count()).toBe(2);

    const orders: string[][] = [];
    const codes: string[] = [];
    for (const [k, url] of urls.entries()) {
      const b = await launchBrowser();
      people.push(b);
      const page = await b.browser.newPage();
      await page.goto(url);
      await page.waitForSelector('[data-testid="participant-landing"]');
      expect(await page.textContent('[data-testid="participant-label"]')).toBe(`P0${k + 1}`);
      expect(await page.textContent('[data-testid="study-instructions"]')).toContain("Write one SQL query per task.");
      const cookie = (await b.browser.cookies()).find((c) => c.name === "ic_session")!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
      // Outside their study, nothing: the episodes list, the runs, the models.
      for (const p of ["/episodes", "/runs", "/models", `/play/study/${studyId}/results`]) {
        const res = await page.request.get(`${server.url}${p}`);
        expect(res.status(), p).toBe(403);
      }
      await page.click('[data-testid="consent"]');
      const order: string[] = [];
      order.push(await workTask(page, { kind: "submit" }, k === 0));
      order.push(k === 0 ? await workTask(page, { kind: "skip", reason: "never used a window function" }) : await workTask(page, { kind: "submit" }));
      order.push(await workTask(page, { kind: "submit" }));
      orders.push(order);
      await page.waitForSelector('[data-testid="completion-code"]');
      codes.push((await page.textContent('[data-testid="completion-code"]'))!.trim());
    }
    // Balanced: the second participant's order is the next row of the Latin square.
    expect(orders[0]).toEqual(TASKS.map((t) => t.id));
    expect(orders[1]).toEqual([TASKS[1].id, TASKS[2].id, TASKS[0].id]);
    expect(codes[0]).toMatch(/^[A-Z2-9]{10}$/);
    expect(codes[1]).not.toBe(codes[0]);

    // The owner: sealed outcomes until the logged reveal; progress, skip reasons, active time, codes.
    await ownerPage.goto(`${server.url}/play/study/${studyId}/results`);
    await ownerPage.waitForSelector('[data-testid="study-results"]');
    expect(await ownerPage.textContent('[data-testid="study-result"][data-annotator="P01"] [data-testid="study-mean-reward"]')).toBe("sealed");
    await ownerPage.click('[data-testid="reveal"]');
    await ownerPage.waitForSelector('[data-testid="study-result"][data-annotator="P01"] [data-testid="study-mean-reward"]:has-text("1.00")');
    const p1 = ownerPage.locator('[data-testid="study-result"][data-annotator="P01"]');
    expect(await p1.locator('[data-testid="study-done"]').textContent()).toBe("3 / 3 (1 skipped)");
    expect(await p1.locator('[data-testid="study-solved"]').textContent()).toBe("2 / 2");
    expect(await p1.locator('[data-testid="study-active"]').textContent()).toMatch(/^0:0[1-9]|^0:[1-5]\d|^\d+:\d\d$/);
    expect(await ownerPage.locator('[data-testid="study-row"][data-annotator="P01"][data-state="skipped"] [data-testid="row-skip-reason"]').textContent()).toBe(
      "never used a window function",
    );
    expect(await ownerPage.textContent(`[data-testid="task-result"][data-task="${TASKS[1].id}"] [data-testid="task-skip-reasons"]`)).toBe(
      "P01: never used a window function",
    );
    expect(await ownerPage.locator('[data-testid="progress-code"]').allTextContents()).toEqual(codes);
    // The model run on the same tasks, beside the humans.
    expect(await ownerPage.locator(`[data-testid="study-tasks"] a[href="/runs/${runId}"]`).count()).toBe(1);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const shot = path.join(ARTIFACTS, "study-results.png");
    await ownerPage.screenshot({ path: shot, fullPage: true });
    console.log(`study results screenshot: ${path.relative(ROOT, shot)}`);

    // Exports, now that the outcomes are revealed.
    const csv = await (await api(`/api/studies/${studyId}/results?format=csv`)).text();
    expect(csv.split(/\r?\n/)[0]).toBe("study,studyId,annotator,position,taskId,state,reward,solved,activeMs,wallMs,skipReason,episodeId");
    expect(csv).toContain("never used a window function");
    const jsonl = (await (await api(`/api/studies/${studyId}/results?format=jsonl`)).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { state: string });
    expect(jsonl).toHaveLength(6);
    expect(jsonl.filter((r) => r.state === "skipped")).toHaveLength(1);

    // Revoking the first participant ends their access at their next request.
    await ownerPage.click('[data-testid="participant-row"][data-participant="P01"] [data-testid="revoke"]');
    await ownerPage.waitForSelector('[data-testid="participant-row"][data-participant="P01"] [data-testid="participant-state"]:has-text("revoked")');
    const gone = await people[0].browser.pages()[0].request.get(`${server.url}/play/study/${studyId}`, { headers: { accept: "text/html" } });
    expect(gone.status()).toBe(401);
    // Closed, the study's seal lifts: the run's rewards show again.
    expect((await api(`/api/studies/${studyId}/close`, { method: "POST" })).status).toBe(200);
    expect(await (await api(`/api/runs/${runId}/export?format=csv`)).text()).toMatch(/,submitted,1,true,/);
    await ownerPage.close();
  });
});
