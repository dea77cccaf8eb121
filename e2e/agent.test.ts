import fs from "node:fs";
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { POLICY_NAMES } from "@/lib/agent/policies/types";
import { goldScript, wrongAction } from "@/lib/agent/scripts";
import { ENV_NAMES, type EnvName, type Task } from "@/lib/datasets/types";
import { launchBrowser } from "./browser";
import { AgentPage } from "./pages/agent-page";
import { ROOT, startServer, type RunningServer } from "./server";
import { readEpisode } from "./store";

/**
 * A scripted model in the browser: run it on a task, pause, step, take over, submit. The app gets
 * a models file whose one model is the scripted OpenAI-compatible server started here.
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
        { id: "scripted-demo", provider: "openai-compatible", model: "scripted", baseURL: scripted.baseURL, contextWindow: 32768, price: { inputPerMtok: 1, outputPerMtok: 2 } },
        { id: "needs-key", provider: "openai", model: "gpt-4o", apiKeyEnv: "IC_E2E_MISSING_KEY", contextWindow: 128000, price: { inputPerMtok: 0, outputPerMtok: 0 } },
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
    await agent.click("submit");
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
