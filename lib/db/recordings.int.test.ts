import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { importPaths } from "@/lib/trajectories/import-paths";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { toJsonlEpisode } from "@/lib/trajectories/export";
import { jsonlEpisodeSchema } from "@/lib/trajectories/jsonl-schema";
import { insertEpisodesBulk } from "./bulk-import";
import { iterateEpisodesWithTurns } from "./export-queries";
import { appendRecordingChunk, getRecordingByEpisode } from "./recordings";

describe.each(storeEngines())("recordings on %s", (engine) => {
  useTempStore("recordings", engine);
  beforeAll(async () => {
    await insertEpisodesBulk({
      episodes: ["rec-1", "rec-2"].map((id, i) => ({
        id,
        sourceKey: `test:${id}`,
        environment: "bash",
        dataset: "demo-bash",
        taskId: String(i),
        taskIndex: i,
        query: "q",
        playerKind: "human",
        annotator: "a",
        model: null,
        policy: null,
        turnLimit: 10,
        status: "submitted",
        reward: 1,
        success: true,
        solvedAtTurn: 1,
        startedAt: 1_700_000_000_000,
        durationMs: 10,
        turns: [{ index: 0, actor: "human", action: "ls", observation: "a", ok: true, reward: null }],
      })),
    });
  });

  it("stores chunks in order per turn, and the export carries them", async () => {
    await appendRecordingChunk({
      episodeId: "rec-1",
      maxBytes: 10_000,
      chunk: {
        turnIndex: 0,
        startedAt: 1_700_000_000_000,
        events: [
          [0, "i", "ls"],
          [5, "o", "ls"],
        ],
        cols: 80,
        rows: 24,
      },
    });
    await appendRecordingChunk({ episodeId: "rec-1", maxBytes: 10_000, chunk: { turnIndex: 1, startedAt: 1_700_000_000_500, events: [[0, "o", "a\r\n"]] } });
    const r = await getRecordingByEpisode({ episodeId: "rec-1" });
    expect(r.chunks.map((c) => [c.seq, c.turnIndex, c.startedAt, c.events.length])).toEqual([
      [0, 0, 1_700_000_000_000, 2],
      [1, 1, 1_700_000_000_500, 1],
    ]);
    expect(r).toMatchObject({ truncated: false, cols: 80, rows: 24 });
    const lines = [];
    for await (const e of iterateEpisodesWithTurns({})) lines.push(jsonlEpisodeSchema.parse(toJsonlEpisode(e)));
    const one = lines.find((l) => l.id === "rec-1")!;
    expect(one.recording?.chunks.map((c) => c.events)).toEqual([
      [
        [0, "i", "ls"],
        [5, "o", "ls"],
      ],
      [[0, "o", "a\r\n"]],
    ]);
    expect(lines.find((l) => l.id === "rec-2")!.recording).toBeUndefined();

    // Imported again (as another episode), the recording comes back whole.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-rec-import-"));
    const file = path.join(dir, "one.jsonl");
    fs.writeFileSync(file, JSON.stringify({ ...one, id: "rec-1-copy", sourceKey: "copy:rec-1" }) + "\n");
    await importPaths([file]);
    const copy = await getRecordingByEpisode({ episodeId: "rec-1-copy" });
    expect(copy.chunks.map((c) => [c.seq, c.turnIndex, c.startedAt, c.events])).toEqual(r.chunks.map((c) => [c.seq, c.turnIndex, c.startedAt, c.events]));
    expect(copy).toMatchObject({ truncated: false, cols: 80, rows: 24 });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("cuts the chunk that reaches the episode's cap, marks it, and drops later ones", async () => {
    const big = (n: number) => ({
      turnIndex: 0,
      startedAt: 1_700_000_000_000,
      events: Array.from({ length: n }, (_, i) => [i, "o", "x".repeat(92)] as [number, "o", string]),
    });
    expect(await appendRecordingChunk({ episodeId: "rec-2", maxBytes: 1000, chunk: big(5) })).toMatchObject({ stored: true, truncated: false, bytes: 500 });
    expect(await appendRecordingChunk({ episodeId: "rec-2", maxBytes: 1000, chunk: big(8) })).toMatchObject({ stored: true, truncated: true, bytes: 1000 });
    expect(await appendRecordingChunk({ episodeId: "rec-2", maxBytes: 1000, chunk: big(1) })).toMatchObject({ stored: false, truncated: true });
    const r = await getRecordingByEpisode({ episodeId: "rec-2" });
    expect(r.chunks.map((c) => c.events.length)).toEqual([5, 5]);
    expect(r).toMatchObject({ truncated: true, bytes: 1000 });
  });
});
