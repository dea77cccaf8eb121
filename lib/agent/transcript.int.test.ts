import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { getEpisodeById } from "@/lib/db/episodes";
import { useTempStore } from "@/lib/testing/store";
import { freePort } from "@/lib/testing/studio-server";
import { listTranscriptMessagesByEpisode } from "@/lib/db/transcripts";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { resolveModel, type ResolvedModel } from "./models";
import { runEpisode } from "./run-episode";
import { goldAction, replyFor, wrongAction } from "./scripts";
import { estimateTokens } from "./conversation";
import { REFUSAL, startScriptedServer, type ChatMessageIn, type ScriptedServer } from "./scripted-server";
import { turnTranscript } from "./transcript";

/**
 * The transcript of a model episode on the real store and the scripted OpenAI-compatible server:
 * every message stored once, and what the transcript says was sent is what the server received.
 * And a provider's failure (bad key, rate limit, refusal, nothing listening) ends the episode
 * with the provider's own message.
 */

useTempStore("transcript");
const FAST_RETRY = { attempts: 2, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 };
let server: ScriptedServer;
const recorder = dbRecorder();
const task = loadDataset("demo-sql")[0]! as Task & { env: "sql" };
/** Every conversation the server received, in order (system prompt first). */
let received: ChatMessageIn[][] = [];

const scripted = (apiKey = "sk-right", extra: Partial<ResolvedModel["info"]> = {}): ResolvedModel => {
  const m = resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey } });
  return { ...m, info: { ...m.info, ...extra } };
};

beforeAll(async () => {
  server = await startScriptedServer({ rules: [] });
});
afterAll(async () => server?.close());

function threeTurns() {
  received = [];
  const replies = [replyFor("try-again", task, wrongAction(task)), replyFor("try-again", task, "SELECT 2"), replyFor("try-again", task, goldAction(task))];
  server.setScript({
    apiKey: "sk-right",
    rules: [{ match: task.query, replies: (ctx) => (received.push(ctx.messages), replies[Math.min(ctx.turn, 2)]!) }],
  });
}

describe("transcript", () => {
  it("stores each message once, a turn marked on the messages it added, and rebuilds exactly what the server received", async () => {
    threeTurns();
    const out = await runEpisode({ task, model: scripted(), policy: "try-again", maxTurns: 5, recorder, retry: FAST_RETRY });
    expect(out).toMatchObject({ status: "submitted", success: true, turns: 3 });
    const messages = await listTranscriptMessagesByEpisode({ episodeId: out.episodeId });
    // System prompt, then a prompt and a reply per turn: 7 messages, not 1 + 2 + 4 + 6.
    expect(messages.map((m) => [m.seq, m.turnIndex, m.role])).toEqual([
      [0, 0, "system"],
      [1, 0, "user"],
      [2, 0, "assistant"],
      [3, 1, "user"],
      [4, 1, "assistant"],
      [5, 2, "user"],
      [6, 2, "assistant"],
    ]);
    const ep = (await getEpisodeById({ id: out.episodeId }))!;
    expect(received).toHaveLength(3);
    for (const [k, sent] of received.entries()) {
      const t = turnTranscript(messages, k);
      expect(t.calls).toHaveLength(1);
      const call = t.calls[0]!;
      expect([{ role: "system", content: call.system }, ...call.sent.map(({ role, content }) => ({ role, content }))]).toEqual(sent);
      expect(call.reply).toBe(ep.turns[k]!.rawReply);
    }
  });

  it("when the context is full, the transcript leaves out the turns the loop left out, as the server saw it", async () => {
    // The third call of the test above: system, task, then two turns. A budget that holds the
    // system prompt, the task and the last turn only.
    const full = received[2]!;
    const cost = (m: ChatMessageIn) => estimateTokens(m.content) + 4;
    const budget = estimateTokens(full[0]!.content) + cost(full[1]!) + cost(full[4]!) + cost(full[5]!) + 20;
    threeTurns();
    const out = await runEpisode({
      task,
      model: scripted("sk-right", { contextWindow: budget + 100, maxOutputTokens: 100 }),
      policy: "try-again",
      maxTurns: 5,
      recorder,
      retry: FAST_RETRY,
    });
    const messages = await listTranscriptMessagesByEpisode({ episodeId: out.episodeId });
    const dropped = messages.filter((m) => (m.droppedTurns ?? 0) > 0);
    expect(dropped.length).toBeGreaterThan(0);
    for (const [k, sent] of received.entries()) {
      const call = turnTranscript(messages, k).calls[0]!;
      expect([{ role: "system", content: call.system }, ...call.sent.map(({ role, content }) => ({ role, content }))]).toEqual(sent);
    }
    expect(received.at(-1)!.some((m) => m.content.includes("left out to fit the model's context"))).toBe(true);
  });
});

describe("provider failures end the episode with the provider's message", () => {
  async function failing(model: ResolvedModel) {
    const out = await runEpisode({ task, model, policy: "try-again", maxTurns: 3, recorder, retry: FAST_RETRY });
    const ep = (await getEpisodeById({ id: out.episodeId }))!;
    expect(out.status).toBe("error");
    expect(ep.status).toBe("error");
    expect(ep.errorReason).toBe(out.errorReason);
    // The prompt that got no answer is kept, under the turn it would have been.
    const t = turnTranscript(await listTranscriptMessagesByEpisode({ episodeId: out.episodeId }), ep.turns.length);
    expect(t.unanswered.map((m) => m.role)).toContain("user");
    return ep.errorReason!;
  }

  it("a bad key (401): one attempt, the provider's words", async () => {
    threeTurns();
    const before = server.requests.length;
    const reason = await failing(scripted("sk-wrong"));
    expect(reason).toMatch(/HTTP 401/);
    expect(reason).toContain("Incorrect API key provided (scripted)");
    expect(server.requests.length - before).toBe(1);
  });

  it("a rate limit (429) past the retries", async () => {
    server.setScript({ rules: [{ match: task.query, replies: ["x"], faults: [{ kind: "429", times: 100, retryAfterSec: 0 }] }] });
    const reason = await failing(scripted());
    expect(reason).toMatch(/HTTP 429.*rate limited \(scripted\).*after 2 attempts/);
  });

  it("a refused reply, not retried", async () => {
    server.setScript({ rules: [{ match: task.query, replies: ["x"], faults: [{ kind: "refusal", times: 100 }] }] });
    const before = server.requests.length;
    const reason = await failing(scripted());
    expect(reason).toContain(`refused to answer: ${REFUSAL}`);
    expect(server.requests.length - before).toBe(1);
  });

  it("an endpoint with nothing listening", async () => {
    // A port nothing listens on.
    const m = resolveModel("scripted", { adhoc: { baseURL: `http://127.0.0.1:${await freePort()}/v1` } });
    expect(await failing(m)).toMatch(/provider unreachable: .*(ECONNREFUSED|Cannot connect)/i);
  });
});
