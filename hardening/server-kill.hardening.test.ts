/**
 * Fault: the server is SIGKILLed in the middle of an episode. On restart every answered turn is
 * in the store, the episode shows as interrupted, and it resumes (replayed) and takes more actions.
 */
import fs from "node:fs";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordFigure } from "./figures";

const canRun = appAvailable();
if (!canRun)
  recordFigure({
    section: "faults",
    row: "server SIGKILL mid-episode",
    tried: 0,
    passed: 0,
    unit: "skipped: no production build (next build, or IC_HARDENING_BUILD=1)",
  });
import { appAvailable, ensureApp } from "./studio-process";
import { spawnStudio, type StudioProcess } from "@/lib/testing/studio-server";
import { connectWs, tempDb } from "@/lib/testing/ws-client";

const { dir, db } = tempDb("ic-hardening-kill-");
let server: StudioProcess | null = null;

beforeAll(() => {
  if (canRun) ensureApp();
}, 900_000);
afterAll(async () => {
  await server?.kill("SIGTERM");
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!canRun)("server killed mid-episode", () => {
  it("keeps every answered turn; the episode is interrupted and resumes", async () => {
    server = await spawnStudio({ IC_DB: db });
    const ws = await connectWs(server.url);
    ws.send({ type: "open", env: "bash", taskRef: "demo-bash:count-python-files" });
    const opened = await ws.next("opened", 120_000);
    const episodeId = opened.episode.id;
    const answered: string[] = [];
    for (const n of [1, 2, 3]) {
      const action = `echo answered-${n}`;
      ws.send({ type: "action", text: action, source: "console" });
      const end = await ws.next(["turnEnd", "error"], 60_000);
      expect(end.type, JSON.stringify(end)).toBe("turnEnd");
      answered.push(action);
    }
    // A fourth action is running when the server dies.
    ws.send({ type: "action", text: "sleep 8; echo never-answered", source: "console" });
    await ws.next("turnStart");
    const code = await server.kill("SIGKILL");
    expect(code).toBe("SIGKILL");
    await ws.closed;

    server = await spawnStudio({ IC_DB: db });
    expect(server.logs()).toMatch(/interrupted/);
    const store = new Database(db, { readonly: true });
    const turns = store.prepare(`SELECT "index", action FROM Turn WHERE episodeId = ? ORDER BY "index"`).all(episodeId) as { index: number; action: string }[];
    const status = (store.prepare(`SELECT status FROM Episode WHERE id = ?`).get(episodeId) as { status: string } | undefined)?.status;
    store.close();
    const stored = new Set(turns.map((t) => t.action));
    const lost = answered.filter((a) => !stored.has(a)).length;

    const ws2 = await connectWs(server.url);
    ws2.send({ type: "resume", episodeId });
    const resumed = await ws2.next(["opened", "error"], 120_000);
    let resumedOk = false;
    if (resumed.type === "opened") {
      ws2.send({ type: "action", text: "echo after-resume", source: "console" });
      const end = await ws2.next(["turnEnd", "error"], 60_000);
      resumedOk = end.type === "turnEnd" && end.observation.trim() === "after-resume";
    }
    ws2.close();
    recordFigure({
      section: "faults",
      row: "server SIGKILL mid-episode",
      tried: 1,
      passed: lost === 0 && status === "interrupted" && resumedOk ? 1 : 0,
      unit: "handled",
      extra: { "turns answered": answered.length, "turns lost": lost, status: String(status), resumed: String(resumedOk) },
    });
    expect(lost).toBe(0);
    expect(turns.map((t) => t.action).slice(0, 3)).toEqual(answered);
    expect(status).toBe("interrupted");
    expect(resumed.type, JSON.stringify(resumed)).toBe("opened");
    if (resumed.type === "opened") expect(resumed.turns.map((t) => t.action).slice(0, 3)).toEqual(answered);
    expect(resumedOk).toBe(true);
  }, 600_000);
});
