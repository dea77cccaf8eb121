import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { appendTurn, createEpisode, finishEpisode } from "@/lib/db/episodes";
import { appendTranscriptMessages } from "@/lib/db/transcripts";
import { exportEpisodes } from "./export";
import { importLogText } from "./import";
import { importPaths } from "./import-paths";
import { episodeJsonSchema, jsonlEpisodeSchema } from "./jsonl-schema";
import { computeStats, type StatsResult } from "@/lib/stats/measures";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { useFreshDb } from "@/lib/testing/store";

const sample = path.join(sharedIntercodeDir(), "results-sample");
const GROUP = ["env", "dataset", "actor", "model", "policy", "hardness"] as const;

async function exportText(format: "jsonl" | "intercode", filters = {}): Promise<string> {
  let out = "";
  await exportEpisodes({ format, filters, write: (c) => void (out += c) });
  return out;
}

const stats = (): Promise<StatsResult> => computeStats({ groupBy: [...GROUP] });

afterAll(() => closeStore());

describe("export", () => {
  it("docs/episode.schema.json is generated from the zod schema and up to date", () => {
    const file = path.resolve(__dirname, "../../docs/episode.schema.json");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(episodeJsonSchema());
  });

  it("round trip: import → export JSONL → import into a fresh database leaves the statistics unchanged", async () => {
    useFreshDb("rt1");
    await importPaths([sample]);
    const before = await stats();
    expect(before.groups.length).toBe(4);
    const jsonl = await exportText("jsonl");
    const lines = jsonl.trim().split("\n");
    expect(lines).toHaveLength(163);
    for (const l of lines) jsonlEpisodeSchema.parse(JSON.parse(l));
    // the same export imported into the same database adds nothing
    expect((await importLogText("again.jsonl", jsonl)).added).toBe(0);

    await closeStore();
    useFreshDb("rt2");
    const rep = await importLogText("export.jsonl", jsonl);
    expect(rep).toMatchObject({ format: "jsonl", added: 163, rejected: [] });
    expect(await stats()).toEqual(before);
    expect(await exportText("jsonl")).toBe(jsonl);
  });

  it("a model turn's latency and tokens, and the episode's first action and duration, survive export and import", async () => {
    await closeStore();
    useFreshDb("rt-latency");
    const ep = await createEpisode({
      environment: "sql",
      dataset: "demo-sql",
      taskId: "1",
      query: "count the rows",
      playerKind: "model",
      model: "m",
      policy: "react",
      turnLimit: 3,
    });
    await appendTurn({
      episodeId: ep.id,
      turn: { index: 0, actor: "model", action: "SELECT 1", observation: "[(1,)]", ok: true, tokensIn: 120, tokensOut: 9, durationMs: 4, latencyMs: 812 },
    });
    await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 1 } });
    const jsonl = await exportText("jsonl");
    const line = JSON.parse(jsonl);
    expect(line.turns[0]).toMatchObject({ tokensIn: 120, tokensOut: 9, durationMs: 4, latencyMs: 812 });
    expect(line.firstActionAt).toEqual(expect.any(String));
    expect(line.durationMs).toBe(Date.parse(line.endedAt) - Date.parse(line.firstActionAt));
    await closeStore();
    useFreshDb("rt-latency-2");
    expect(await importLogText("one.jsonl", jsonl)).toMatchObject({ added: 1, rejected: [] });
    // The import gives the live episode its idempotency key; everything else comes back as it was.
    expect({ ...JSON.parse(await exportText("jsonl")), sourceKey: null }).toEqual(JSON.parse(jsonl));
  });

  it("a model episode's transcript (each message once, by turn) survives export and import; a line whose messages go backwards is refused, naming them", async () => {
    await closeStore();
    useFreshDb("rt-transcript");
    const ep = await createEpisode({
      environment: "sql",
      dataset: "demo-sql",
      taskId: "1",
      query: "count the rows",
      playerKind: "model",
      model: "m",
      policy: "try-again",
      turnLimit: 3,
    });
    const messages = [
      { seq: 0, role: "system" as const, content: "You write SQL." },
      { seq: 1, role: "user" as const, content: "count the rows" },
      { seq: 2, role: "assistant" as const, content: "```sql\nSELECT 1\n```" },
    ];
    await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "model", action: "SELECT 1", observation: "[(1,)]", ok: true, messages } });
    await appendTranscriptMessages({ episodeId: ep.id, turnIndex: 1, messages: [{ seq: 3, role: "user", content: "Output: [(1,)]" }] });
    await finishEpisode({ episodeId: ep.id, outcome: { status: "error", reason: "provider: HTTP 429" } });
    const jsonl = await exportText("jsonl");
    const line = JSON.parse(jsonl);
    expect(line.messages).toEqual([
      ...messages.map((m) => ({ ...m, turnIndex: 0, droppedTurns: null })),
      { seq: 3, turnIndex: 1, role: "user", content: "Output: [(1,)]", droppedTurns: null },
    ]);
    await closeStore();
    useFreshDb("rt-transcript-2");
    expect(await importLogText("one.jsonl", jsonl)).toMatchObject({ added: 1, rejected: [] });
    expect({ ...JSON.parse(await exportText("jsonl")), sourceKey: null }).toEqual({ ...line, sourceKey: null });
    const backwards = JSON.stringify({ ...line, id: "other", sourceKey: null, messages: [line.messages[1], line.messages[0]] });
    const rep = await importLogText("bad.jsonl", backwards);
    expect(rep.added).toBe(0);
    expect(rep.rejected[0]!.reason).toMatch(/^messages: seq must increase/);
  });

  it("round trip through InterCode's results format keeps the statistics of a results file", async () => {
    await closeStore();
    useFreshDb("rt3");
    const name = "ic_bash_multiturn_gpt-4_10_turns_fs_4.json";
    await importPaths([path.join(sample, "bash", name)]);
    const before = await stats();
    const text = await exportText("intercode", { environment: "bash" });
    const orig = JSON.parse(fs.readFileSync(path.join(sample, "bash", name), "utf8"));
    const back = JSON.parse(text);
    expect(Object.keys(back).sort()).toEqual(Object.keys(orig).sort());
    expect(back["0"].turn_history).toEqual(orig["0"].turn_history);
    expect(back["0"].summary).toEqual(orig["0"].summary);
    await closeStore();
    useFreshDb("rt4");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-rt-"));
    fs.writeFileSync(path.join(dir, name), text);
    await importPaths([dir]);
    expect(await stats()).toEqual(before);
  });

  it("filters the exported set", async () => {
    await closeStore();
    useFreshDb("rt5");
    await importPaths([sample]);
    const solvedPython = (await exportText("jsonl", { environment: "python", success: true })).trim().split("\n");
    expect(solvedPython).toHaveLength(69);
    expect(await exportText("intercode", { model: "nobody" })).toBe("{}\n");
  });

  it("a stored episode exports to the same bytes, keys in the format's order (an episode imported from a line exports as that line)", async () => {
    await closeStore();
    useFreshDb("rt-bytes");
    const turn = {
      index: 0,
      actor: "model",
      action: "SELECT COUNT(*) FROM t",
      observation: "[(3,)]",
      ok: true,
      reward: 1,
      rawReply: "Action: execute[SELECT COUNT(*) FROM t]",
      thought: "count them",
      tokensIn: 120,
      tokensOut: 9,
      durationMs: 4,
      latencyMs: 812,
      costUsd: 0.0012,
      source: "model",
      timedOut: false,
      aborted: false,
      startedAt: "2026-01-02T03:04:05.678Z",
    };
    const line = JSON.stringify({
      format: "icstudio.episode",
      version: 1,
      id: "0190a000-0000-7000-8000-000000000001",
      environment: "sql",
      dataset: "spider-dev",
      taskId: "7",
      taskIndex: 7,
      query: "how many rows?",
      gold: "SELECT COUNT(*) FROM t",
      hardness: "easy",
      db: "concert_singer",
      playerKind: "model",
      annotator: null,
      model: "gpt-4",
      policy: "react",
      turnLimit: 10,
      mode: "eval",
      feedback: "none",
      status: "submitted",
      errorReason: null,
      reward: 1,
      breakdown: { kind: "sql", overlap: 1, order: null },
      success: true,
      solvedAtTurn: 1,
      goldObservation: "[(3,)]",
      agentObservation: "[(3,)]",
      startedAt: "2026-01-02T03:04:05.000Z",
      firstActionAt: "2026-01-02T03:04:05.678Z",
      endedAt: "2026-01-02T03:04:07.000Z",
      durationMs: 1322,
      sourceFile: "runs/one.jsonl",
      sourceKey: "pin:1",
      parentEpisodeId: null,
      branchTurn: null,
      tags: ["query-error"],
      flags: ["forced-submit"],
      turnsTaken: 1,
      turns: [turn, { ...turn, index: 1, action: "submit", observation: "", rawReply: null, thought: null, startedAt: "2026-01-02T03:04:06.500Z" }],
      messages: [
        { seq: 0, turnIndex: 0, role: "system", content: "You are an SQL agent.", droppedTurns: null },
        { seq: 1, turnIndex: 0, role: "assistant", content: "Action: execute[SELECT COUNT(*) FROM t]", droppedTurns: 0 },
      ],
    });
    expect(await importLogText("pin.jsonl", line + "\n")).toMatchObject({ added: 1, rejected: [] });
    expect(await exportText("jsonl")).toBe(line + "\n");
  });
});
