import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { POLICY_NAMES } from "@/lib/agent/policies/types";
import { goldAction, goldScript, ruleFor, scriptedReplies, wrongAction } from "@/lib/agent/scripts";
import { ENV_NAMES, type EnvName, type Task } from "@/lib/datasets/types";
import { launchBrowser } from "@/lib/testing/browser";
import { AgentPage } from "./pages/agent-page";
import { RunsPage } from "./pages/runs-page";
import { ROOT, startServer, type RunningServer } from "@/lib/testing/studio-server";
import { readEpisode } from "./store";

/**
 * A scripted model in the browser: run it on a task, pause, step, take over, submit; reattach to
 * it after a reload; batch runs launched, watched, reloaded and compared. The app gets a models
 * file whose one usable model is the scripted OpenAI-compatible server started here.
 */

const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
let scripted: ScriptedServer;
let app: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  scripted = await startScriptedServer({ rules: [], delayMs: 400 });
  const configDir = fs.mkdtempSync(path.join(ROOT, "var", "e2e-models-"));
  const config = path.join(configDir, "models.json");
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
        {
          id: "needs-key",
          provider: "openai",
          model: "gpt-4o",
          apiKeyEnv: "IC_E2E_MISSING_KEY",
          contextWindow: 128000,
          price: { inputPerMtok: 0, outputPerMtok: 0 },
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

describe("a model in the playground", () => {
  it("runs a scripted model, pauses, steps, lets a person take over and submit; the store holds every turn by actor", async () => {
    const task = loadDataset("demo-python")[0]!;
    if (task.env !== "python") throw new Error("expected a python task");
    scripted.setScript({ rules: [{ match: task.query, replies: ["Trying a first version.\n```python\n" + wrongAction(task) + "\n```"] }], delayMs: 400 });
    const page = await browser.browser.newPage();
    const agent = new AgentPage(page, app.url);
    await agent.open("python", task.dataset, task.id);
    // The model without its key is listed, but cannot be picked.
    expect(await page.locator('[data-testid="agent-model"] option[value="needs-key"]').isDisabled()).toBe(true);

    await agent.start("scripted-demo", "try-again", 10);
    await agent.waitTurns(1);
    await agent.click("pause");
    await agent.waitStatus("paused");
    // Pause takes effect at the next turn boundary: a turn already in flight may still land.
    await new Promise((r) => setTimeout(r, 1200));
    const afterPause = await agent.turnCount();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await agent.turnCount()).toBe(afterPause); // paused: no new turn
    await agent.click("step");
    await agent.waitTurns(afterPause + 1);
    await agent.waitStatus("paused");

    await agent.click("takeover");
    await agent.waitStatus("human");
    await agent.runInEditor(task.gold);
    await agent.waitTurns(afterPause + 2);
    // Try Again scores the person's turn and ends the episode at reward 1.0 on its own (the outcome
    // lands a moment after the turn): no Submit click, which would race the episode's end.
    expect(await agent.reward()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, "agent.png") });

    const actors = await agent.actors();
    expect(actors.slice(0, afterPause + 1).every((a) => a === "model")).toBe(true);
    expect(actors.at(-1)).toBe("human");
    const { episode, turns } = readEpisode(app.dbPath, await agent.episodeId());
    expect(episode).toMatchObject({ status: "submitted", reward: 1, mode: "play" });
    // The model's turns, then the person's gold from the editor. Try Again scores every turn and
    // ends the episode at reward 1.0 (as InterCode's agents stopped), so no separate submit turn.
    expect(turns.map((t) => t.source)).toEqual([...Array(afterPause + 1).fill("model"), "editor"]);
    expect(turns.at(-1)!.ok).toBe(1);
    await page.close();
  });
});

/** A model episode with the fields the policy tests check, straight from the server's database. */
function readModelEpisode(dbPath: string, id: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const episode = db.prepare(`SELECT status, reward, playerKind, policy, taskId FROM "Episode" WHERE id = ?`).get(id);
    const turns = db.prepare(`SELECT actor, source, thought, rawReply, tokensOut FROM "Turn" WHERE episodeId = ? ORDER BY "index"`).all(id) as {
      actor: string;
      source: string | null;
      thought: string | null;
      rawReply: string | null;
      tokensOut: number | null;
    }[];
    return { episode, turns };
  } finally {
    db.close();
  }
}

/** A demo task per environment whose gold solution is one plain action (as the batch tests pick). */
function pickTask(env: EnvName): Task {
  const tasks = loadDataset(`demo-${env}`);
  return tasks.find((t) => (t.env !== "bash" || typeof t.gold === "string") && (t.env !== "ctf" || t.solution)) ?? tasks[0]!;
}

describe("every policy on every environment in the browser", () => {
  for (const env of ENV_NAMES) {
    it(`${env}: each of the four policies solves its task, and the store holds every turn`, async () => {
      const task = pickTask(env);
      const page = await browser.browser.newPage();
      try {
        for (const policy of POLICY_NAMES) {
          scripted.setScript({ ...goldScript(policy, [task]), delayMs: 0 });
          const agent = new AgentPage(page, app.url);
          await agent.open(env, task.dataset, task.id);
          await agent.start("scripted-demo", policy, 5);
          expect(await agent.reward(), `${env} ${policy}`).toBe(1);
          const shown = await agent.turnCount();
          const { episode, turns } = readModelEpisode(app.dbPath, await agent.episodeId());
          expect(episode, `${env} ${policy}`).toMatchObject({ status: "submitted", reward: 1, playerKind: "model", policy, taskId: task.id });
          expect(turns.length).toBe(shown);
          expect(turns.every((t) => t.rawReply && t.tokensOut !== null)).toBe(true);
          expect(turns.every((t) => t.actor === "model" && t.source === "model")).toBe(true);
          if (policy === "react") expect(turns[0]!.thought).toBeTruthy();
        }
        await page.screenshot({ path: path.join(ARTIFACTS, `agent-${env}.png`) });
      } finally {
        await page.close();
      }
    }, 180_000);
  }
});

/** Five SQL tasks for the batch runs below. */
const runTasks = loadDataset("demo-sql").slice(0, 5);

async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${app.url}${url}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

describe("runs in the browser", () => {
  it("launches a 5-task run, survives a reload mid-run, finishes at 5 / 5 with its success rate, and compares with a second run", async () => {
    // Slow replies, so the run is still going when the page is reloaded.
    scripted.setScript({ ...goldScript("try-again", runTasks), delayMs: 800 });
    const page = await browser.browser.newPage();
    const runs = new RunsPage(page, app.url);
    const first = await runs.launch({ env: "sql", dataset: "demo-sql", limit: 5, model: "scripted-demo", policy: "try-again", turns: 4, concurrency: 1 });
    await page.waitForFunction(() => /^[1-4] \/ 5$/.test(document.querySelector('[data-testid="run-progress"]')?.textContent?.trim() ?? ""), null, {
      timeout: 90_000,
    });
    await page.reload();
    // After the reload the page follows the live run again: it is shown running and reaches the end by itself.
    const [doneAtReload] = await runs.progress();
    expect(doneAtReload).toBeLessThan(5);
    expect(await page.getAttribute('[data-testid="run-view"]', "data-live")).toBe("1");
    await runs.waitProgress("5 / 5");
    await page.waitForSelector('[data-testid="run-view"][data-live="0"]');
    expect(await runs.successRate()).toBe("100.0%");
    expect(await runs.taskStatuses()).toEqual(Array(5).fill("submitted"));
    await page.waitForSelector('[data-testid="run-success-at-k"] svg');
    await page.screenshot({ path: path.join(ARTIFACTS, "run.png"), fullPage: true });

    // A second run on the same tasks in which the last two are answered wrongly.
    scripted.setScript({ rules: runTasks.map((t, i) => ruleFor(t, scriptedReplies("try-again", t, i < 3 ? "solve" : "wrong"))) });
    const second = await api<{ id: string }>("POST", "/api/runs", {
      env: "sql",
      dataset: "demo-sql",
      selection: { kind: "slice", limit: 5 },
      model: "scripted-demo",
      policy: "try-again",
      turns: 4,
      concurrency: 2,
      name: "second",
    });
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
    expect(onlyFirst).toEqual([runTasks[3]!.id, runTasks[4]!.id]);
    // Paired statistics: 2 tasks solved by the first run only and none by the second: McNemar's exact p = 0.5,
    // a difference of +40 points; the per-hardness rows below the overall one.
    expect(await page.getAttribute('[data-testid="paired-stats-row"][data-group="all"]', "data-p")).toBe("0.5");
    expect(await page.textContent('[data-testid="paired-mcnemar"]')).toMatch(
      /on the 2 tasks only one run solved \(2 by .*, 0 by second\): two-sided p = 0\.500/,
    );
    expect(await page.textContent('[data-testid="paired-ci"]')).toMatch(/on the same 5 tasks: \+40\.0 pp\. 95% bootstrap interval: /);
    const axe = await new AxeBuilder({ page: page as never }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, "runs-compare.png"), fullPage: true });
    // Each task's two episodes side by side.
    await page.click('[data-testid="pair-a-only"] [data-testid="pair-compare"]');
    await page.waitForURL(/\/compare\?ids=[^,]+,[^,]+$/);
    await page.close();
  }, 240_000);
});

describe("watching a model play a task", () => {
  it("names the run in the URL and reattaches after a reload: turns so far, live output, Pause and Take over still work", async () => {
    const task = runTasks[0]!;
    // A model that keeps answering wrongly, slowly: the episode is still running after the reload.
    scripted.setScript({ rules: [ruleFor(task, [scriptedReplies("try-again", task, "wrong")[0]!])], delayMs: 700 });
    const page = await browser.browser.newPage();
    const agent = new AgentPage(page, app.url);
    await agent.open("sql", task.dataset, task.id);
    await agent.start("scripted-demo", "try-again", 30);
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
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('[data-testid="terminal"] .xterm-rows > div')).filter((d) => (d.textContent ?? "").includes("not the answer"))
          .length >= 2,
      null,
      { timeout: 30_000 },
    );
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
