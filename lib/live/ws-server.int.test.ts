import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { closeStore } from "@/lib/db/client";
import { getEpisodeById } from "@/lib/db/episodes";
import { getRecordingByEpisode } from "@/lib/db/recordings";
import { createStudioServer } from "@/lib/http/studio-server";
import { createLiveEpisodeManager, prepareStore } from "@/lib/live/wiring";
import type { LiveEpisodeManager } from "@/lib/live/live-episodes";
import { DEFAULT_TURN_LIMIT } from "@/lib/episodes/rules";
import { MAX_ACTION_BYTES, type ClientMessageInput } from "./protocol";
import type { LiveEvent } from "@/lib/live/events";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-ws-test-"));
process.env.IC_DB = path.join(dir, "studio.db");

const TASK = "demo-python:reverse-words";
const GOLD = "def reverse_words(s):\n    return ' '.join(s.split()[::-1])";

/** A protocol client that keeps every message and waits for the ones a test expects. */
class Client {
  readonly messages: LiveEvent[] = [];
  private waiters: { pred: (m: LiveEvent) => boolean; resolve: (m: LiveEvent) => void }[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on("message", (d) => {
      const m = JSON.parse(String(d)) as LiveEvent;
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => (w.pred(m) ? (w.resolve(m), false) : true));
    });
  }
  static async connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const ws = new WebSocket(url, { headers });
    const c = new Client(ws);
    await new Promise((res, rej) => {
      ws.once("open", res);
      ws.once("error", rej);
    });
    await c.next("hello");
    return c;
  }
  send(m: ClientMessageInput | string): void {
    this.ws.send(typeof m === "string" ? m : JSON.stringify(m));
  }
  next<T extends LiveEvent["type"]>(
    type: T,
    pred: (m: Extract<LiveEvent, { type: T }>) => boolean = () => true,
    timeoutMs = 30_000,
  ): Promise<Extract<LiveEvent, { type: T }>> {
    const seen = this.messages.find((m) => m.type === type && pred(m as Extract<LiveEvent, { type: T }>) && !this.consumed.has(m));
    if (seen) {
      this.consumed.add(seen);
      return Promise.resolve(seen as Extract<LiveEvent, { type: T }>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(-5))}`)), timeoutMs);
      this.waiters.push({
        pred: (m) => m.type === type && pred(m as Extract<LiveEvent, { type: T }>) && !this.consumed.has(m),
        resolve: (m) => {
          clearTimeout(timer);
          this.consumed.add(m);
          resolve(m as Extract<LiveEvent, { type: T }>);
        },
      });
    });
  }
  private consumed = new Set<LiveEvent>();
  close(): void {
    this.ws.close();
  }
}

let manager: LiveEpisodeManager;
let server: ReturnType<typeof createStudioServer>["server"];
let url: string;

async function listen(m: LiveEpisodeManager, token: string | null = null) {
  const s = createStudioServer({ token, manager: m, handle: (_req, res) => void res.writeHead(404).end() }).server;
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return { server: s, url: `ws://127.0.0.1:${(s.address() as AddressInfo).port}/ws` };
}

beforeAll(async () => {
  await prepareStore();
  manager = createLiveEpisodeManager({ idleMs: 60_000, maxSandboxes: 2, backend: "local" });
  ({ server, url } = await listen(manager));
});

afterAll(async () => {
  await manager?.shutdown();
  server?.close();
  await closeStore();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("playground websocket", () => {
  it("streams an action's output, commits the turn before turnEnd, and scores a submit", async () => {
    const c = await Client.connect(url);
    c.send({ type: "open", env: "python", taskRef: TASK, mode: "baseline", feedback: "none", annotator: "tester" });
    const opened = await c.next("opened");
    expect(opened.task.query).toMatch(/reverse_words/);
    // The open named no turn limit: the engine's default applies (the wire owns no rule).
    expect(opened.episode.turnLimit).toBe(DEFAULT_TURN_LIMIT);
    // No gold and no hidden test in what the player receives.
    expect(JSON.stringify(opened)).not.toMatch(/assert|join\(reversed/);

    c.send({ type: "action", text: "print(6 * 7)", source: "console" });
    const out = await c.next("output");
    expect(out.chunk).toContain("42");
    const end = await c.next("turnEnd");
    expect(end).toMatchObject({ index: 0, ok: true });
    expect(end.reward).toBeUndefined();
    // turnEnd came after the store had the turn.
    const stored = await getEpisodeById({ id: opened.episode.id });
    expect(stored?.turns.map((t) => t.action)).toEqual(["print(6 * 7)"]);

    c.send({ type: "action", text: GOLD, source: "editor" });
    await c.next("turnEnd", (m) => m.index === 1);
    c.send({ type: "action", text: "submit", source: "console" });
    const sub = await c.next("submitted");
    expect(sub.reward).toBe(1);
    expect(sub.breakdown.kind).toBe("python");
    expect(sub.gold).toContain("reverse_words");

    const ep = await getEpisodeById({ id: opened.episode.id });
    expect(ep).toMatchObject({ status: "submitted", reward: 1, annotator: "tester", mode: "baseline", playerKind: "human" });
    expect(ep?.turns.map((t) => t.action)).toEqual(["print(6 * 7)", GOLD, "submit"]);
    // After submit the episode takes no more actions.
    c.send({ type: "action", text: "1+1", source: "console" });
    expect((await c.next("error")).message).toMatch(/submitted/);
    c.close();
  });

  it("stores the recording's batches of its own episode only once it is stored, and refuses a bad batch naming the field", async () => {
    const c = await Client.connect(url);
    c.send({ type: "open", env: "python", taskRef: TASK });
    const opened = await c.next("opened");
    const chunk = { turnIndex: 0, startedAt: Date.now(), events: [[0, "i", "x"]] as [number, "i", string][] };
    c.send({ type: "record", ...chunk });
    expect((await c.next("error")).message).toMatch(/not stored yet/);
    c.send({ type: "action", text: "print(1)", source: "console" });
    await c.next("turnEnd");
    c.send({ type: "record", ...chunk });
    c.send({ type: "record", turnIndex: 1, startedAt: Date.now(), events: [[0, "z", "x"]] } as unknown as ClientMessageInput);
    expect((await c.next("error")).message).toMatch(/events\.0\.1/);
    // The good batch is written without waiting for an answer: wait for it.
    let r = await getRecordingByEpisode({ episodeId: opened.episode.id });
    for (let i = 0; i < 40 && r.chunks.length === 0; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      r = await getRecordingByEpisode({ episodeId: opened.episode.id });
    }
    expect(r.chunks.map((x) => x.events)).toEqual([[[0, "i", "x"]]]);
    c.close();
  });

  it("stores an episode at its first action, not when the task is opened", async () => {
    const c = await Client.connect(url);
    c.send({ type: "open", env: "python", taskRef: TASK });
    const looked = await c.next("opened");
    expect(looked.episode.stored).toBe(false);
    // Opened and left: nothing is stored, not even on abandon.
    c.send({ type: "abandon" });
    await c.next("abandoned");
    expect(await getEpisodeById({ id: looked.episode.id })).toBeNull();

    c.send({ type: "open", env: "python", taskRef: TASK });
    const opened = await c.next("opened");
    expect(await getEpisodeById({ id: opened.episode.id })).toBeNull();
    c.send({ type: "action", text: "x = 1", source: "console" });
    await c.next("turnEnd");
    const stored = await getEpisodeById({ id: opened.episode.id });
    expect(stored).toMatchObject({ status: "running", turnCount: 1 });
    c.send({ type: "abandon" });
    await c.next("abandoned");
    expect((await getEpisodeById({ id: opened.episode.id }))?.status).toBe("abandoned");
    c.close();
  });

  it("rejects bad messages with clear errors and keeps the connection", async () => {
    const c = await Client.connect(url);
    c.send("not json");
    expect((await c.next("error")).message).toMatch(/not JSON/);
    c.send({ type: "action", text: "1", source: "console" });
    expect((await c.next("error")).message).toMatch(/no episode is open/);
    c.send(JSON.stringify({ type: "open", env: "cobol", taskRef: "x" }));
    expect((await c.next("error")).message).toMatch(/env/);
    c.send({ type: "open", env: "python", taskRef: "demo-python:no-such-task" });
    expect((await c.next("error")).code).toBe("not_found");
    c.send({ type: "open", env: "python", taskRef: TASK });
    await c.next("opened");
    c.send({ type: "action", text: "x".repeat(MAX_ACTION_BYTES + 1), source: "editor" });
    const big = await c.next("error");
    expect(big.message).toMatch(/larger than/);
    c.send({ type: "action", text: "1+1", source: "console" });
    expect((await c.next("turnEnd")).observation).toContain("2");
    c.send({ type: "abandon" });
    await c.next("abandoned");
    c.close();
  });

  it("feedback mode 'reward' sends the reward after every turn", async () => {
    const c = await Client.connect(url);
    c.send({ type: "open", env: "python", taskRef: TASK, feedback: "reward" });
    await c.next("opened");
    c.send({ type: "action", text: GOLD, source: "editor" });
    expect((await c.next("turnEnd")).reward).toBe(1);
    c.send({ type: "abandon" });
    await c.next("abandoned");
    c.close();
  });

  it("interrupts a running action and enforces the turn limit", async () => {
    const c = await Client.connect(url);
    c.send({ type: "open", env: "python", taskRef: TASK, turnLimit: 2 });
    await c.next("opened");
    c.send({ type: "action", text: "while True: pass", source: "console" });
    await c.next("turnStart");
    c.send({ type: "action", text: "1", source: "console" });
    expect((await c.next("error")).code).toBe("conflict");
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    c.send({ type: "interrupt" });
    const end = await c.next("turnEnd");
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(end.aborted).toBe(true);
    c.send({ type: "action", text: "1+1", source: "console" });
    await c.next("turnEnd", (m) => m.index === 1);
    await c.next("limitReached");
    c.send({ type: "action", text: "2+2", source: "console" });
    await c.next("limitReached");
    c.send({ type: "submit" });
    // At the limit the submit is the forced one: scored, not a turn.
    expect(await c.next("submitted")).toMatchObject({ reward: 0, forced: true });
    c.close();
  });

  it("resumes on reconnect (live sandbox) and after a restart (replay into a fresh sandbox)", async () => {
    const c = await Client.connect(url);
    c.send({ type: "open", env: "python", taskRef: TASK });
    const { episode } = await c.next("opened");
    c.send({ type: "action", text: "counter = 40", source: "console" });
    await c.next("turnEnd");
    c.close();

    const c2 = await Client.connect(url);
    c2.send({ type: "resume", episodeId: episode.id });
    const again = await c2.next("opened");
    expect(again.turns.map((t) => t.action)).toEqual(["counter = 40"]);
    expect(again.episode.replayed).toBeUndefined();
    c2.send({ type: "action", text: "counter += 1", source: "console" });
    await c2.next("turnEnd");
    c2.close();

    // A new process: live sandboxes are gone, the store marks the episode interrupted.
    await manager.shutdown();
    server.close();
    expect(await prepareStore()).toBeGreaterThanOrEqual(1);
    manager = createLiveEpisodeManager({ idleMs: 60_000, maxSandboxes: 2, backend: "local" });
    ({ server, url } = await listen(manager));
    const c3 = await Client.connect(url);
    c3.send({ type: "resume", episodeId: episode.id });
    await c3.next("status");
    const restored = await c3.next("opened");
    expect(restored.episode.replayed).toBe(true);
    expect(restored.episode.status).toBe("running");
    c3.send({ type: "action", text: "print(counter + 1)", source: "console" });
    expect((await c3.next("turnEnd")).observation.trim()).toBe("42");
    const ep = await getEpisodeById({ id: episode.id });
    expect(ep?.status).toBe("running");
    expect(ep?.turns).toHaveLength(3);
    c3.send({ type: "abandon" });
    await c3.next("abandoned");
    c3.close();
  });

  it("caps live sandboxes with a clear message", async () => {
    const a = await Client.connect(url);
    const b = await Client.connect(url);
    const c = await Client.connect(url);
    a.send({ type: "open", env: "python", taskRef: TASK });
    await a.next("opened");
    b.send({ type: "open", env: "python", taskRef: TASK });
    await b.next("opened");
    c.send({ type: "open", env: "python", taskRef: TASK });
    const err = await c.next("error");
    expect(err.code).toBe("limit_reached");
    expect(err.message).toMatch(/all 2 sandboxes are in use/);
    a.send({ type: "abandon" });
    await a.next("abandoned");
    c.send({ type: "open", env: "python", taskRef: TASK });
    await c.next("opened");
    for (const x of [b, c]) {
      x.send({ type: "abandon" });
      await x.next("abandoned");
      x.close();
    }
    a.close();
  });

  it("requires the token when one is set, and refuses foreign origins", async () => {
    const guarded = await listen(manager, "s3cret");
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(guarded.url, { headers });
        ws.on("open", () => (ws.close(), resolve(101)));
        ws.on("unexpected-response", (_q, res) => resolve(res.statusCode ?? 0));
        ws.on("error", () => resolve(0));
      });
    expect(await status({})).toBe(401);
    expect(await status({ authorization: "Bearer nope" })).toBe(401);
    expect(await status({ authorization: "Bearer s3cret" })).toBe(101);
    expect(await status({ authorization: "Bearer s3cret", origin: "http://evil.example" })).toBe(403);
    guarded.server.close();
  });
});

describe("one connection's messages, in order (finding 4)", () => {
  it("twelve concurrent opens on one connection never hold more than the cap, and closing frees the slots at once", async () => {
    const m = createLiveEpisodeManager({ idleMs: 600_000, maxSandboxes: 2, backend: "local" });
    const s = await listen(m);
    try {
      const c = await Client.connect(s.url);
      let peak = 0;
      const watch = setInterval(() => (peak = Math.max(peak, m.size)), 1);
      for (let i = 0; i < 12; i++) c.send({ type: "open", env: "python", taskRef: TASK, mode: "play", feedback: "reward" });
      // Each open is answered in turn; the last one is the episode the connection holds.
      for (let i = 0; i < 12; i++) await c.next("opened", () => true, 60_000);
      clearInterval(watch);
      expect(peak).toBeLessThanOrEqual(2);
      expect(m.size).toBeLessThanOrEqual(2);
      c.close();
      await new Promise((r) => setTimeout(r, 100));
      // Both slots are free for other players now, not IC_IDLE_MS (10 minutes here) later.
      const others = await Promise.all([Client.connect(s.url), Client.connect(s.url)]);
      for (const o of others) o.send({ type: "open", env: "python", taskRef: TASK, mode: "play", feedback: "reward" });
      for (const o of others) expect((await o.next("opened")).task.query).toMatch(/reverse_words/);
      expect(m.size).toBe(2);
      for (const o of others) o.close();
    } finally {
      await m.shutdown();
      s.server.close();
    }
  }, 120_000);
});

describe("the upgrade checks Host and Origin (finding 2)", () => {
  it("refuses a rebound Host even with a matching Origin, and a foreign Origin", async () => {
    const port = new URL(url).port;
    const attempt = (headers: Record<string, string>) =>
      Client.connect(url, headers).then(
        (c) => (c.close(), "connected"),
        (e: Error) => e.message,
      );
    expect(await attempt({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).toMatch(/421/);
    expect(await attempt({ origin: "http://127.0.0.1:9997" })).toMatch(/403/);
    expect(await attempt({ origin: `http://127.0.0.1:${port}` })).toBe("connected");
  });
});
