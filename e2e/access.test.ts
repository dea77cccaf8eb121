import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadDataset } from "@/lib/datasets/registry";
import { launchBrowser } from "@/lib/testing/browser";
import { PlayPage } from "./pages/play-page";
import { startServer, type RunningServer } from "@/lib/testing/studio-server";
import { readEpisode } from "./store";

const TOKEN = "e2e-token-4f9c2a7d51b8-0123456789abcdef";

/** Resolves with the HTTP status of a websocket handshake (101 when accepted). */
function wsStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => resolve(0));
  });
}

describe("a token-protected server", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ IC_TOKEN: TOKEN, IC_TIMEOUT_MS: "2000" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("rejects pages, API routes and the websocket without the token", async () => {
    const page = await fetch(`${server.url}/play`, { redirect: "manual", headers: { accept: "text/html" } });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/login\?next=/);
    for (const p of ["/api/tasks", "/api/studies", "/play/random", "/"]) {
      const res = await fetch(`${server.url}${p}`, { redirect: "manual" });
      expect([401, 303]).toContain(res.status);
    }
    expect((await fetch(`${server.url}/api/tasks`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/tasks`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect(await wsStatus(server.url.replace("http", "ws") + "/ws")).toBe(401);
    // The login page itself is open.
    expect((await fetch(`${server.url}/login`)).status).toBe(200);
  });

  it("accepts a Bearer token on API routes and the websocket", async () => {
    const res = await fetch(`${server.url}/api/tasks?env=python`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBeGreaterThan(0);
    expect(await wsStatus(server.url.replace("http", "ws") + "/ws", { authorization: `Bearer ${TOKEN}` })).toBe(101);
  });

  it("works in the browser after logging in, and a wrong token is refused", async () => {
    const b = await launchBrowser();
    try {
      const page = await b.browser.newPage();
      await page.goto(`${server.url}/play?env=python`);
      expect(new URL(page.url()).pathname).toBe("/login");
      await page.fill('[data-testid="token"]', "not-the-token");
      await page.click('[data-testid="login"]');
      await page.waitForSelector('[role="alert"]');
      await page.fill('[data-testid="token"]', TOKEN);
      await page.click('[data-testid="login"]');
      await page.waitForSelector('[data-testid="task-list"]');
      const cookies = await b.browser.cookies();
      expect(cookies.find((c) => c.name === "ic_session")?.httpOnly).toBe(true);

      // The playground works over the websocket with the cookie; the short timeout stops a sleep.
      const task = loadDataset("demo-bash")[0];
      const play = new PlayPage(page, server.url);
      await play.open("bash", task.dataset, task.id);
      const t0 = Date.now();
      await play.typeInConsole("sleep 60");
      await play.waitTurns(1, 15_000);
      expect(Date.now() - t0).toBeLessThan(15_000);
      await play.waitConsole(/timed out/);
      const { turns } = readEpisode(server.dbPath, play.episodeId());
      expect(turns).toHaveLength(1);
    } finally {
      await b.close();
    }
  });
});

describe("binding off loopback", () => {
  it("refuses to start without a token", async () => {
    await expect(startServer({ IC_HOST: "0.0.0.0" })).rejects.toThrow(/IC_TOKEN/);
  });
});
