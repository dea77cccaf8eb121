import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { closeStore } from "@/lib/db/client";
import { getEpisodeById } from "@/lib/db/episodes";
import { ConflictError } from "@/lib/errors";
import type { AddressInfo } from "node:net";
import { createStudioServer } from "@/lib/http/studio-server";
import { connectWs } from "@/lib/testing/ws-client";
import { controlAgent, getAgent, startAgent, watchAgent } from "./model-actor";
import { createLiveEpisodeManager } from "./wiring";
import { loggedLiveEventSchema, type LoggedLiveEvent } from "@/lib/live/events";
import { wrongAction } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";

/** The playground's live model episodes, on a real python sandbox, store and scripted server. */

let server: ScriptedServer;
beforeAll(async () => {
  process.env.IC_DB = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-live-agents-")), "studio.db");
  server = await startScriptedServer({ rules: [] });
});
afterAll(async () => {
  await server?.close();
  await closeStore();
});

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("live model episodes", () => {
  it("starts paused, steps, lets a person take over and submit; the log replays from any point", async () => {
    const task = loadDataset("demo-python")[0]!;
    if (task.env !== "python") throw new Error("expected python");
    server.setScript({ rules: [{ match: task.query, replies: ["```python\n" + wrongAction(task) + "\n```"] }] });
    const agent = await startAgent(
      task,
      { model: "scripted", policy: "react", turnLimit: 5, handicap: false, refineTurns: 0, paused: true },
      { adhoc: { baseURL: server.baseURL } },
    );
    expect(getAgent(agent.id)).toBe(agent);
    const seen: LoggedLiveEvent[] = [];
    agent.subscribe((e) => seen.push(e));
    await until(() => agent.log.some((e) => e.event.type === "episodeStart"));
    await controlAgent(agent.id, { op: "step" });
    await until(() => agent.log.some((e) => e.event.type === "turnEnd"));
    await controlAgent(agent.id, { op: "takeOver" });
    await expect(controlAgent(agent.id, { op: "action", text: task.gold, source: "console" })).resolves.toEqual({ mode: "human" });
    await controlAgent(agent.id, { op: "action", text: `submit ${task.functionName ?? ""}`.trim(), source: "button" });
    const outcome = await agent.done;
    expect(outcome).toMatchObject({ status: "submitted", success: true });
    expect(agent.log.map((e) => e.seq)).toEqual(agent.log.map((_, i) => i));
    expect(seen.at(-1)!.event.type).toBe("episodeEnd");
    // Every event the run logged is one the live channel's schema describes, as the page reads it.
    for (const e of agent.log) expect(loggedLiveEventSchema.safeParse(JSON.parse(JSON.stringify(e))).error?.issues).toBeUndefined();
    // A turn is told with the same events a person's episode sends: started, then ended with who acted and how.
    expect(agent.log.filter((e) => e.event.type === "turnEnd").map((e) => e.event.type === "turnEnd" && [e.event.actor, e.event.source])).toEqual([
      ["model", "model"],
      ["human", "console"],
      ["human", "button"],
    ]);
    // A watcher that comes back at entry 3 (a reconnect) gets the rest of the log, in order, once.
    const later: LoggedLiveEvent[] = [];
    watchAgent(agent.episodeId!, 3, (e) => later.push(e));
    expect(later.map((e) => e.seq)).toEqual(agent.log.slice(3).map((e) => e.seq));
    const ep = await getEpisodeById({ id: agent.episodeId! });
    // Each turn says who acted and where the person typed (today's code stored "editor" for both).
    expect(ep!.turns.map((t) => [t.actor, t.source])).toEqual([
      ["model", "model"],
      ["human", "console"],
      ["human", "button"],
    ]);
    expect(ep!.mode).toBe("play");
    await expect(controlAgent(agent.id, { op: "pause" })).rejects.toBeInstanceOf(ConflictError);
  });

  it("is watched and driven over the websocket: numbered entries, a reconnect resumes after the last seen, controls", async () => {
    const task = loadDataset("demo-python")[1]!;
    if (task.env !== "python") throw new Error("expected python");
    server.setScript({ rules: [{ match: task.query, replies: ["```python\n" + wrongAction(task) + "\n```"] }] });
    const manager = createLiveEpisodeManager({ idleMs: 60_000, maxSandboxes: 1, backend: "local" });
    const http = createStudioServer({ token: null, manager, handle: (_req, res) => void res.writeHead(404).end() }).server;
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const agent = await startAgent(
        task,
        { model: "scripted", policy: "react", turnLimit: 5, handicap: false, refineTurns: 0, paused: true },
        { adhoc: { baseURL: server.baseURL } },
      );
      const a = await connectWs(base);
      // Driving needs a watch first.
      a.send({ type: "control", op: "step" });
      expect((await a.next("error", 15_000)).message).toMatch(/no model episode is watched/);
      // A control sent right behind a watch waits for it.
      a.send({ type: "watch", id: agent.id });
      a.send({ type: "control", op: "step" });
      expect((await a.next("logged", 15_000)).seq).toBe(0);
      let last = 0;
      for (;;) {
        const e = await a.next("logged", 15_000);
        last = e.seq;
        if (e.event.type === "turnEnd") break;
      }
      a.close();
      // A second connection (a reconnect) asks from the entry after the last seen: no entry twice, none skipped.
      const b = await connectWs(base);
      b.send({ type: "watch", id: agent.episodeId!, from: last + 1 });
      b.send({ type: "control", op: "takeOver" });
      b.send({ type: "control", op: "action", text: `submit ${task.functionName ?? ""}`.trim(), source: "button" });
      const seqs: number[] = [];
      for (;;) {
        const e = await b.next("logged", 15_000);
        seqs.push(e.seq);
        if (e.event.type === "episodeEnd") break;
      }
      expect(seqs).toEqual(agent.log.slice(last + 1).map((e) => e.seq));
      expect(await agent.done).toMatchObject({ status: "submitted" });
      b.send({ type: "control", op: "pause" });
      expect((await b.next("error", 15_000)).message).toMatch(/ended/);
      b.close();
    } finally {
      await manager.shutdown();
      http.close();
    }
  });
});
