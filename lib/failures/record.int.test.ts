import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModel, type ResolvedModel } from "@/lib/agent/models";
import { runEpisode } from "@/lib/agent/run-episode";
import { ruleFor, scriptedReplies } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { loadDataset } from "@/lib/datasets/registry";
import { listMachineTagsBySource } from "@/lib/db/annotations";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { useTempStore } from "@/lib/testing/store";
import { detectEpisodeById } from "./record";

// The detectors at the end of a played episode: a model run (the scripted model server over HTTP,
// the SQL environment on the local sandbox, the real store) gets its machine tags when it ends.

const FAST_RETRY = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 };
let server: ScriptedServer;
let model: ResolvedModel;

describe("detectors at episode end", () => {
  useTempStore("detect-at-end");
  beforeAll(async () => {
    server = await startScriptedServer({ rules: [] });
    model = resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey: "test" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a model that types its answer in and submits with turns left is tagged so when its episode ends; running the detectors again changes nothing", async () => {
    const task = loadDataset("demo-sql")[0]!;
    server.setScript({ rules: [ruleFor(task, scriptedReplies("try-again", task, "wrong"))] });
    const out = await runEpisode({ task, model, policy: "try-again", maxTurns: 5, recorder: dbRecorder(), retry: FAST_RETRY });
    expect(out.status).toBe("submitted");
    expect(out.success).toBe(false);
    const tags = await listMachineTagsBySource({ source: "detector", episodeIds: [out.episodeId] });
    expect(tags.map((t) => [t.tag, t.turnIndex])).toEqual([
      ["sql-hardcoded-answer", 0],
      ["gave-up-early", 1],
    ]);
    expect(tags[0].provenance).toEqual({ detector: "sql-hardcoded-answer", version: 1 });
    expect(tags[0].text).toBe("literal answer: SELECT 'not the answer'");
    await detectEpisodeById({ episodeId: out.episodeId });
    expect((await listMachineTagsBySource({ source: "detector", episodeIds: [out.episodeId] })).map((t) => [t.tag, t.turnIndex])).toEqual(
      tags.map((t) => [t.tag, t.turnIndex]),
    );
  });

  it("a model that solves the task gets no failure tag", async () => {
    const task = loadDataset("demo-sql")[1]!;
    server.setScript({ rules: [ruleFor(task, scriptedReplies("try-again", task, "solve"))] });
    const out = await runEpisode({ task, model, policy: "try-again", maxTurns: 5, recorder: dbRecorder(), retry: FAST_RETRY });
    expect(out.success).toBe(true);
    expect(await listMachineTagsBySource({ source: "detector", episodeIds: [out.episodeId] })).toEqual([]);
  });
});
