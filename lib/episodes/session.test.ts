import { describe, expect, it } from "vitest";
import type { Task } from "@/lib/datasets/types";
import { fakeEnvironment } from "@/lib/testing/fake-environment";
import { EpisodeController } from "./controller";
import { memoryRecorder } from "./memory-recorder";
import { EpisodeSession, type SessionOptions, type StoredEpisode } from "./session";

// The session state machine with a fake environment and an in-memory recorder: no sandbox, no
// database. The integration tiers (lib/live/*.int.test.ts, lib/agent/run-episode.int.test.ts, e2e)
// drive the same session over real sandboxes and the real store.

const task: Task = { env: "sql", dataset: "demo-sql", id: "t1", index: 0, query: "how many?", gold: "SELECT 1", db: "bikes" } as Task;

/** An environment whose actions echo, scored 1.0 once the action `win` has run. */
const fakeEnv = (log: string[] = []) => fakeEnvironment({ log, query: task.query });

function options(recorder = memoryRecorder(), env = fakeEnv(), over: Partial<SessionOptions> = {}): SessionOptions {
  return {
    task,
    recorder,
    environment: async () => env,
    start: { player: { kind: "human", annotator: "ann" }, turnLimit: 3, mode: "play", feedback: "reward", id: "ep-1" },
    storeAt: "first-action",
    ...over,
  };
}

describe("EpisodeSession", () => {
  it("stores nothing until the first action, then records each turn before act resolves", async () => {
    const rec = memoryRecorder();
    const s = await EpisodeSession.open(options(rec));
    await s.ready();
    expect(s.status).toBe("running");
    expect(rec.calls).toEqual([]);
    const chunks: string[] = [];
    const { turn } = await s.act(
      "ls",
      { actor: "human", source: "console" },
      { onOutput: (c) => chunks.push(c), score: async (e) => ({ reward: (await e.evaluate()).reward }) },
    );
    expect(chunks).toEqual(["out:ls"]);
    expect(rec.calls).toEqual(["start ep-1", "turn ep-1 0"]);
    expect(turn).toMatchObject({
      index: 0,
      actor: "human",
      source: "console",
      action: "ls",
      observation: "ran ls",
      ok: true,
      reward: 0,
      invalid: false,
      rawReply: null,
    });
    expect(rec.episodes.get("ep-1")!.turns[0]).toBe(turn);
    expect(s.firstActionAt).toBe(turn.startedAt.getTime());
  });

  it("stores at open for a model run, with the model's meta on its turns", async () => {
    const rec = memoryRecorder();
    const s = await EpisodeSession.open(
      options(rec, fakeEnv(), {
        storeAt: "open",
        start: { player: { kind: "model", model: "m", policy: "try-again" }, turnLimit: 5, mode: "eval", feedback: "none" },
      }),
    );
    expect(rec.calls).toEqual(["start mem-1"]);
    expect(s.id).toBe("mem-1");
    const meta = { rawReply: "```sql\nSELECT 1\n```", thought: "t", tokensIn: 10, tokensOut: 2, latencyMs: 3.6, costUsd: 0.01 };
    const { turn } = await s.act("SELECT 1", { actor: "model", source: "model", meta, messages: [{ seq: 0, role: "system", content: "sys" }] });
    expect(turn).toMatchObject({
      actor: "model",
      source: "model",
      rawReply: meta.rawReply,
      tokensIn: 10,
      latencyMs: 4,
      costUsd: 0.01,
      reward: null,
      messages: [{ seq: 0, role: "system", content: "sys" }],
    });
    const bad = await s.invalid("no action in the reply", { actor: "model", source: "model", meta });
    expect(bad).toMatchObject({ index: 1, action: "", ok: false, invalid: true, observation: "no action in the reply" });
  });

  it("a typed submit is a turn; at the turn limit the submit is forced and is not", async () => {
    const rec = memoryRecorder();
    const a = await EpisodeSession.open(options(rec, fakeEnv(), { start: { ...options().start, id: "a" } }));
    await a.act("win", { actor: "human", source: "editor" }, { score: async (e) => ({ reward: (await e.evaluate()).reward }) });
    const typed = await a.submit(undefined, { actor: "human", source: "console", action: "submit" });
    expect(typed.forced).toBe(false);
    expect(typed.turn).toMatchObject({ index: 1, action: "submit", source: "console", reward: 1, observation: "agent" });
    expect(typed.end).toMatchObject({ status: "submitted", reward: 1, success: true, solvedAtTurn: 1 });
    expect(a.status).toBe("submitted");
    expect(rec.episodes.get("a")!.turns.map((t) => t.action)).toEqual(["win", "submit"]);

    const b = await EpisodeSession.open(options(rec, fakeEnv(), { start: { ...options().start, id: "b", turnLimit: 1 } }));
    await b.act("ls", { actor: "human", source: "console" });
    expect(b.limitReached).toBe(true);
    await expect(b.act("ls", { actor: "human", source: "console" })).rejects.toThrow(/turn limit \(1\)/);
    const forced = await b.submit(undefined, { actor: "human", source: "button", action: "submit" });
    expect(forced.forced).toBe(true);
    expect(forced.turn).toBeNull();
    expect(rec.episodes.get("b")!.turns).toHaveLength(1);
    expect(rec.episodes.get("b")!.end).toMatchObject({ status: "submitted", reward: 0, success: false, solvedAtTurn: null });
    await expect(b.act("ls", { actor: "human", source: "console" })).rejects.toThrow(/the episode is submitted/);
  });

  it("abandon leaves nothing behind for an episode never acted on, unless it is kept (a study's Skip)", async () => {
    const rec = memoryRecorder();
    const a = await EpisodeSession.open(options(rec, fakeEnv(), { start: { ...options().start, id: "a" } }));
    await a.abandon("restart");
    expect(a.status).toBe("abandoned");
    expect(rec.calls).toEqual([]);
    const b = await EpisodeSession.open(options(rec, fakeEnv(), { start: { ...options().start, id: "b" } }));
    await b.abandon("skip: too hard", { keep: true });
    expect(rec.calls).toEqual(["start b", "end b abandoned"]);
    expect(rec.episodes.get("b")!.end).toMatchObject({ status: "abandoned", errorReason: "skip: too hard" });
  });

  it("a failing sandbox ends the episode with status error, written once", async () => {
    const rec = memoryRecorder();
    const s = await EpisodeSession.open(options(rec));
    await s.act("ls", { actor: "human", source: "console" });
    await expect(s.act("boom", { actor: "human", source: "console" })).rejects.toThrow(/sandbox gone/);
    expect(s.status).toBe("running");
    await s.fail("sandbox gone");
    await s.fail("again");
    await s.abandon("late");
    expect(rec.calls).toEqual(["start ep-1", "turn ep-1 0", "end ep-1 error"]);
  });

  it("a stop drops the step in flight and leaves the episode interrupted; resume replays the stored actions", async () => {
    const rec = memoryRecorder();
    const stop = new AbortController();
    const s = await EpisodeSession.open(options(rec));
    await s.act("ls", { actor: "human", source: "console" });
    stop.abort(new Error("stopped"));
    await expect(s.act("pwd", { actor: "model", source: "model" }, { stop: stop.signal })).rejects.toThrow("stopped");
    await s.interrupt("stopped");
    expect(rec.episodes.get("ep-1")!.status).toBe("interrupted");
    expect(rec.episodes.get("ep-1")!.turns).toHaveLength(1);
    await s.close();

    const log: string[] = [];
    const stored: StoredEpisode = {
      id: "ep-1",
      env: "sql",
      dataset: "demo-sql",
      taskId: "t1",
      status: "interrupted",
      mode: "play",
      feedback: "reward",
      turnLimit: 3,
      annotator: "ann",
      studyId: null,
      reward: null,
      breakdown: null,
      goldObservation: null,
      agentObservation: null,
      firstActionAt: 5,
      turns: [
        { index: 0, actor: "human", source: "console", action: "win", observation: "ran win", ok: true, reward: 1 },
        { index: 1, actor: "human", source: "console", action: "submit", observation: "", ok: true, reward: 1 },
      ],
    };
    const r = await EpisodeSession.resume({ ...options(rec, fakeEnv(log)), start: options().start }, stored);
    expect(log).toEqual(["reset", "step win"]); // the submit is not replayed
    expect(rec.calls.at(-1)).toBe("reopen ep-1");
    expect(r).toMatchObject({ id: "ep-1", status: "running", stored: true, replayed: true, firstActionAt: 5 });
    expect(r.turns).toHaveLength(2);
  });

  it("a person who takes over a model episode acts in the same session, recorded as human with its source", async () => {
    const rec = memoryRecorder();
    const controller = new EpisodeController();
    const s = await EpisodeSession.open(
      options(rec, fakeEnv(), {
        storeAt: "open",
        start: { player: { kind: "model", model: "m", policy: "react" }, turnLimit: 5, mode: "play", feedback: "none" },
      }),
    );
    controller.takeOver();
    const done = controller.humanAction("ls -la", "editor");
    const gate = await controller.next();
    expect(gate.kind).toBe("human");
    if (gate.kind !== "human") return;
    const { turn } = await s.act(gate.action, { actor: "human", source: gate.source });
    gate.resolve(turn);
    expect(await done).toMatchObject({ actor: "human", source: "editor", action: "ls -la" });
    controller.handBack();
    expect((await controller.next()).kind).toBe("model");
  });
});
