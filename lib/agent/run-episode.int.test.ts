import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { ENV_NAMES, type EnvName, type Task } from "@/lib/datasets/types";
import { closeStore } from "@/lib/db/client";
import { getEpisodeById } from "@/lib/db/episodes";
import { EpisodeController } from "@/lib/episodes/controller";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { resolveModel, type ResolvedModel } from "./models";
import { POLICY_NAMES } from "./policies/types";
import { runEpisode } from "./run-episode";
import type { AgentEvent } from "@/lib/episodes/agent-event";
import { goldAction, ruleFor, scriptedReplies, wrongAction } from "./scripts";
import { startScriptedServer, type ScriptedServer } from "./scripted-server";

/**
 * Every policy on every environment, end to end: the scripted OpenAI-compatible server over
 * HTTP, the real environments on the local sandbox, and a real SQLite store.
 */

const FAST_RETRY = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 };
let server: ScriptedServer;
let model: ResolvedModel;
const recorder = dbRecorder();

beforeAll(async () => {
  process.env.IC_DB = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-agent-")), "studio.db");
  server = await startScriptedServer({ rules: [] });
  model = resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey: "test" } });
});
afterAll(async () => {
  await server?.close();
  await closeStore();
});

/** A task per environment whose gold solution is one plain action. */
function pickTask(env: EnvName): Task {
  const tasks = loadDataset(`demo-${env}`);
  const plain = tasks.find((t) => (t.env !== "bash" || typeof t.gold === "string") && (t.env !== "ctf" || t.solution));
  return plain ?? tasks[0]!;
}

async function stored(id: string) {
  const ep = await getEpisodeById({ id });
  expect(ep).not.toBeNull();
  return ep!;
}

for (const env of ENV_NAMES) {
  describe(`${env}`, () => {
    for (const policy of POLICY_NAMES) {
      describe(policy, () => {
        it("solves a task with the gold solution and stores every turn", async () => {
          const task = pickTask(env);
          server.setScript({ rules: [ruleFor(task, scriptedReplies(policy, task, "solve"))] });
          const events: AgentEvent[] = [];
          const out = await runEpisode({
            task,
            model,
            policy,
            maxTurns: 5,
            recorder,
            retry: FAST_RETRY,
            onEvent: (e) => events.push(e),
            stream: policy === "react",
          });
          expect(out.status).toBe("submitted");
          expect(out.success).toBe(true);
          expect(out.reward).toBe(1);
          const ep = await stored(out.episodeId);
          expect(ep).toMatchObject({ status: "submitted", success: true, reward: 1, playerKind: "model", policy, model: model.info.id, taskId: task.id });
          expect(ep.turns.length).toBe(out.turns);
          expect(ep.turnCount).toBe(out.turns);
          for (const t of ep.turns) {
            expect(t.actor).toBe("model");
            expect(t.rawReply).toBeTruthy();
            expect(t.tokensIn).toBeGreaterThan(0);
            expect(t.tokensOut).toBeGreaterThan(0);
          }
          if (policy !== "single-turn" && env !== "ctf") expect(ep.turns.map((t) => t.action)).toContain(goldAction(task).trim());
          if (policy === "react") expect(ep.turns[0]!.thought).toBe("Let me try something first.");
          if (policy === "plan-solve") expect(ep.turns[0]!.thought).toMatch(/^Plan:\n1\. Inspect/);
          if (policy === "try-again" && env !== "ctf") {
            // Stopped at reward 1.0 without a submit from the model, the reward of each turn stored.
            expect(ep.turns.at(-1)!.reward).toBe(1);
            expect(ep.turns[0]!.reward).toBeLessThan(1);
          }
          // Turn events come after the store has the turn, in order.
          const ends = events.filter((e) => e.type === "turn-end");
          expect(ends.length).toBe(ep.turns.length);
          expect(events.at(-1)!.type).toBe("episode-end");
        });

        it("records an unsolved task as submitted without success", async () => {
          const task = pickTask(env);
          server.setScript({ rules: [ruleFor(task, scriptedReplies(policy, task, "wrong"))] });
          const out = await runEpisode({ task, model, policy, maxTurns: 4, recorder, retry: FAST_RETRY });
          expect(out.status).toBe("submitted");
          expect(out.success).toBe(false);
          expect(out.reward).toBeLessThan(1);
          const ep = await stored(out.episodeId);
          expect(ep.success).toBe(false);
          expect(ep.turns[0]!.action).toBe(policy === "single-turn" && env === "ctf" ? "submit wrong{flag}" : wrongAction(task));
        });

        it("counts a reply with no action as an invalid turn and tells the model why", async () => {
          const task = pickTask(env);
          server.setScript({ rules: [ruleFor(task, scriptedReplies(policy, task, "no-action"))] });
          const out = await runEpisode({ task, model, policy, maxTurns: 5, recorder, retry: FAST_RETRY });
          const ep = await stored(out.episodeId);
          const first = ep.turns[0]!;
          expect(first).toMatchObject({ action: "", ok: false });
          expect(first.observation).toMatch(/no action found/);
          expect(ep.invalidCount).toBeGreaterThanOrEqual(1);
          if (policy === "single-turn") {
            expect(out.turns).toBe(1);
            expect(out.success).toBe(false);
          } else {
            expect(out.success).toBe(true);
            // The model was told what was wrong with its reply.
            const second = server.requests.filter((r) => r.outcome === "ok");
            expect(second.length).toBeGreaterThan(1);
          }
        });

        it("recovers from provider errors within its retries", async () => {
          const task = pickTask(env);
          server.setScript({
            rules: [
              ruleFor(task, scriptedReplies(policy, task, "solve"), [
                { kind: "500", times: 1, turn: 0 },
                { kind: "429", times: 1, turn: 1, retryAfterSec: 0 },
              ]),
            ],
          });
          const before = server.requests.length;
          const out = await runEpisode({ task, model, policy, maxTurns: 5, recorder, retry: FAST_RETRY });
          expect(out.status).toBe("submitted");
          expect(out.success).toBe(true);
          const faults = server.requests.slice(before).filter((r) => r.outcome !== "ok");
          expect(faults.length).toBeGreaterThanOrEqual(1);
        });

        it("stores an episode whose provider keeps failing as an error, with the reason", async () => {
          const task = pickTask(env);
          server.setScript({ rules: [ruleFor(task, scriptedReplies(policy, task, "solve"), [{ kind: "500", times: 100 }])] });
          const out = await runEpisode({ task, model, policy, maxTurns: 5, recorder, retry: FAST_RETRY });
          expect(out.status).toBe("error");
          expect(out.errorReason).toMatch(/provider: .*HTTP 500.*after 3 attempts/);
          const ep = await stored(out.episodeId);
          expect(ep.status).toBe("error");
          expect(ep.errorReason).toMatch(/HTTP 500/);
        });
      });
    }
  });
}

describe("controller", () => {
  it("pauses, steps one turn, lets a person take over, and hands back to the model", async () => {
    const task = pickTask("python");
    if (task.env !== "python") throw new Error("expected a python task");
    // The model's replies: turn 0 wrong; after the person's turn the model submits.
    server.setScript({
      rules: [
        {
          match: task.query,
          replies: (ctx) =>
            ctx.messages.some((m) => m.content.includes("A person took over"))
              ? `submit ${task.functionName ?? ""}`.trim()
              : "```python\n" + wrongAction(task) + "\n```",
        },
      ],
    });
    const controller = new EpisodeController({ paused: true });
    const events: AgentEvent[] = [];
    const turnEnded = (n: number) =>
      new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (events.filter((e) => e.type === "turn-end").length >= n) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
    const done = runEpisode({
      task,
      model,
      policy: "try-again",
      maxTurns: 6,
      recorder,
      controller,
      retry: FAST_RETRY,
      onEvent: (e) => events.push(e),
      mode: "play",
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(events.filter((e) => e.type === "turn-start")).toHaveLength(0); // paused: nothing ran
    controller.step();
    await turnEnded(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(events.filter((e) => e.type === "turn-start")).toHaveLength(1); // exactly one turn
    controller.takeOver();
    const human = await controller.humanAction(task.gold, "editor");
    expect(human).toMatchObject({ actor: "human", source: "editor", action: task.gold, ok: true, reward: 1 });
    const out = await done;
    // Reward 1.0 after the person's turn ends the episode under Try Again.
    expect(out).toMatchObject({ status: "submitted", success: true });
    const ep = await stored(out.episodeId);
    expect(ep.turns.map((t) => [t.actor, t.source])).toEqual([
      ["model", "model"],
      ["human", "editor"],
    ]);
  });

  it("hands back to the model, which continues from the person's history", async () => {
    const task = pickTask("sql");
    let sawHuman = false;
    server.setScript({
      rules: [
        {
          match: task.query,
          replies: (ctx) => {
            sawHuman = ctx.messages.some((m) => m.content.includes("A person took over"));
            return sawHuman ? "```sql\n" + goldAction(task) + "\n```" : "```sql\n" + wrongAction(task) + "\n```";
          },
        },
      ],
    });
    const controller = new EpisodeController();
    controller.takeOver();
    const done = runEpisode({ task, model, policy: "react", maxTurns: 3, recorder, controller, retry: FAST_RETRY });
    await controller.humanAction("SELECT 1", "console");
    controller.handBack();
    const out = await done;
    expect(sawHuman).toBe(true);
    const ep = await stored(out.episodeId);
    expect(ep.turns.map((t) => [t.actor, t.source])).toEqual([
      ["human", "console"],
      ["model", "model"],
      ["model", "model"],
    ]);
    expect(ep.turns[1]!.action).toBe(goldAction(task).trim());
  });

  it("stops a running episode: it is left interrupted with the turns so far", async () => {
    const task = pickTask("sql");
    server.setScript({ rules: [{ match: task.query, replies: ["```sql\n" + wrongAction(task) + "\n```"] }], delayMs: 150 });
    const controller = new EpisodeController();
    const events: AgentEvent[] = [];
    const done = runEpisode({ task, model, policy: "react", maxTurns: 10, recorder, controller, retry: FAST_RETRY, onEvent: (e) => events.push(e) });
    while (!events.some((e) => e.type === "turn-end")) await new Promise((r) => setTimeout(r, 20));
    controller.stop();
    const out = await done;
    server.setScript({ rules: [] });
    expect(out.status).toBe("interrupted");
    const ep = await stored(out.episodeId);
    expect(ep.status).toBe("interrupted");
    expect(ep.turns.length).toBeGreaterThanOrEqual(1);
  });
});
