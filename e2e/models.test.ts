import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_TEST_PROMPT } from "@/lib/agent/connection-test";
import { goldAction, replyFor } from "@/lib/agent/scripts";
import { freePort } from "@/lib/testing/studio-server";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { ModelsPage } from "./pages/models-page";
import { ROOT, startServer, type RunningServer } from "@/lib/testing/studio-server";

/**
 * The models page against the scripted OpenAI-compatible server (which demands a key): add a
 * model with its key, test its connection, see a refused one fail with its error, then let the
 * added model play and read its transcript in the replay. The key never comes back.
 */

const ARTIFACTS = path.join(ROOT, "e2e/artifacts");
const SECRET = "sk-e2e-models-7f3a9c-keep-it-secret";
const task = loadDataset("demo-sql")[0]!;
const REPLY = replyFor("try-again", task, goldAction(task), "The gold query, first try.");
let scripted: ScriptedServer;
let app: RunningServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  scripted = await startScriptedServer({
    apiKey: SECRET,
    rules: [
      { match: CONNECTION_TEST_PROMPT, replies: ["OK"] },
      { match: task.query, replies: [REPLY] },
    ],
  });
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-e2e-models-page-"));
  const config = path.join(configDir, "models.json");
  // A preset with nothing behind it: listed, but never as ready before a test.
  fs.writeFileSync(
    config,
    JSON.stringify({
      models: [
        {
          id: "nobody-home",
          provider: "openai-compatible",
          model: "m",
          baseURL: `http://127.0.0.1:${await freePort()}/v1`,
          contextWindow: 8192,
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

describe("models page", () => {
  it("adds a model with its key, tests it (ok), shows a refused one's error, refuses bad input naming the field; the key never comes back", async () => {
    const page = await browser.browser.newPage();
    const models = new ModelsPage(page, app.url);
    await models.open();
    expect(await models.status("nobody-home")).toBe("untested");

    expect(await models.add({ provider: "openai-compatible", baseURL: "localhost:8000", model: "x" })).toMatch(/baseURL/);
    expect(await models.add({ provider: "openai-compatible", baseURL: "http://127.0.0.1:1/v1", model: " " })).toMatch(/model: the model name is empty/);

    expect(await models.add({ provider: "openai-compatible", baseURL: scripted.baseURL, model: "scripted", id: "scripted-e2e", apiKey: SECRET })).toBeNull();
    expect(await models.row("scripted-e2e").locator('[data-testid="model-key"]').textContent()).toMatch(/^set/);
    expect(await models.status("scripted-e2e")).toBe("untested");
    const ok = await models.test("scripted-e2e");
    expect(ok).toMatch(/^ok · \d+ ms$/);

    // Same endpoint, wrong key: the provider's 401 and its words.
    expect(
      await models.add({ provider: "openai-compatible", baseURL: scripted.baseURL, model: "scripted", id: "wrong-key", apiKey: "sk-not-this-one" }),
    ).toBeNull();
    const bad = await models.test("wrong-key");
    expect(bad).toMatch(/^error: .*HTTP 401.*Incorrect API key provided/);

    // Nothing listening: refused.
    const refused = await models.test("nobody-home");
    expect(refused).toMatch(/^error: provider unreachable: .*(ECONNREFUSED|Cannot connect)/i);
    await page.screenshot({ path: path.join(ARTIFACTS, "models.png") });

    // After a reload the last tests are still there.
    await models.open();
    expect(await models.status("scripted-e2e")).toBe("ok");
    expect(await models.status("nobody-home")).toBe("failed");
    expect(await models.row("scripted-e2e").locator('[data-testid="model-test-result"]').textContent()).toMatch(/^ok/);

    // The key is nowhere the browser can reach, nor in the server's logs; it is in the 0600 file.
    expect(await page.content()).not.toContain(SECRET);
    for (const url of ["/api/models", "/api/agent/models", "/models"]) expect(await (await fetch(app.url + url)).text()).not.toContain(SECRET);
    expect(app.logs()).not.toContain(SECRET);
    const keyFile = path.join(app.dataDir, "model-keys.json");
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(keyFile, "utf8")).toContain(SECRET);
    await page.close();
  });

  it("the added model plays a task; its episode's transcript opens in the replay beside the turn", async () => {
    const res = await fetch(`${app.url}/api/live`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ env: "sql", taskRef: `${task.dataset}:${task.id}`, model: "scripted-e2e", policy: "try-again", turnLimit: 3 }),
    });
    expect(res.status).toBe(201);
    let episodeId = "";
    for (let i = 0; i < 120 && !episodeId; i++) {
      const db = new Database(app.dbPath, { readonly: true, fileMustExist: true });
      const row = db.prepare(`SELECT id FROM "Episode" WHERE model = 'scripted-e2e' AND status = 'submitted'`).get() as { id: string } | undefined;
      db.close();
      if (row) episodeId = row.id;
      else await new Promise((r) => setTimeout(r, 500));
    }
    expect(episodeId).not.toBe("");

    const page = await browser.browser.newPage();
    await page.goto(`${app.url}/episodes/${episodeId}`);
    await page.waitForSelector('[data-testid="replay"][data-ready="1"]');
    const transcript = page.locator('[data-testid="turn"]').first().locator('[data-testid="transcript"]');
    // Collapsed by default, with the turn's tokens and latency on its summary line.
    expect(await transcript.getAttribute("open")).toBeNull();
    expect(await transcript.locator("summary").textContent()).toMatch(/tokens \d+ in \/ \d+ out · \d+ ms/);
    await transcript.locator("summary").first().click();
    await transcript.locator('[data-testid="transcript-reply"]').waitFor();
    expect(await transcript.locator('[data-testid="transcript-reply"] pre').textContent()).toBe(REPLY);
    expect(await transcript.locator('[data-testid="transcript-sent"]').textContent()).toContain(task.query);
    expect((await transcript.locator('[data-testid="transcript-system"]').textContent())?.length).toBeGreaterThan(20);
    await page.screenshot({ path: path.join(ARTIFACTS, "transcript.png"), fullPage: true });
    await page.close();
  });
});
