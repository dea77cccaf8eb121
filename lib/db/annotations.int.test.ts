import { beforeAll, describe, expect, it } from "vitest";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { countTags, createAnnotation, listMachineTagsBySource, writeMachineTags } from "./annotations";
import { insertEpisodesBulk } from "./bulk-import";
import { getEpisodeById } from "./episodes";
import { listUsedTags } from "./viewer-queries";

const detector = (name: string) => ({ detector: name, version: 1 });

describe.each(storeEngines())("machine tags on %s", (engine) => {
  useTempStore("machine-tags", engine);
  beforeAll(async () => {
    await insertEpisodesBulk({
      episodes: ["mt-1", "mt-2"].map((id, i) => ({
        id,
        sourceKey: `test:${id}`,
        environment: "bash",
        dataset: "demo-bash",
        taskId: String(i),
        taskIndex: i,
        query: "q",
        playerKind: "model",
        annotator: null,
        model: "m",
        policy: "single-turn",
        turnLimit: 10,
        status: "submitted",
        reward: 0,
        success: false,
        solvedAtTurn: null,
        startedAt: 1_700_000_000_000,
        durationMs: 10,
        turns: [
          { index: 0, actor: "model", action: "ls", observation: "a", ok: true, reward: null },
          { index: 1, actor: "model", action: "ls", observation: "a", ok: true, reward: null },
        ],
      })),
    });
  });

  it("a re-run replaces a producer's own tags on the episodes it covers, and leaves person tags and Episode.tags alone", async () => {
    await createAnnotation({ episodeId: "mt-1", kind: "tag", tag: "misread-task", author: "ana" });
    const first = {
      source: "detector" as const,
      authors: ["repeated-action", "gave-up-early"],
      episodeIds: ["mt-1", "mt-2"],
      tags: [
        { episodeId: "mt-1", turnIndex: 1, tag: "repeated-action", text: "ls", author: "repeated-action", provenance: detector("repeated-action") },
        { episodeId: "mt-2", turnIndex: 1, tag: "repeated-action", text: "ls", author: "repeated-action", provenance: detector("repeated-action") },
        { episodeId: "mt-2", turnIndex: null, tag: "gave-up-early", text: null, author: "gave-up-early", provenance: detector("gave-up-early") },
      ],
    };
    await writeMachineTags(first);
    await writeMachineTags(first);
    const all = await listMachineTagsBySource({ source: "detector" });
    expect(all.map((t) => [t.episodeId, t.turnIndex, t.tag, t.provenance])).toEqual([
      ["mt-1", 1, "repeated-action", detector("repeated-action")],
      ["mt-2", null, "gave-up-early", detector("gave-up-early")],
      ["mt-2", 1, "repeated-action", detector("repeated-action")],
    ]);

    // Run again on mt-2 only, where gave-up-early no longer fires: its tag there goes, mt-1's stay.
    await writeMachineTags({ ...first, episodeIds: ["mt-2"], tags: [first.tags[1]] });
    expect((await listMachineTagsBySource({ source: "detector" })).map((t) => [t.episodeId, t.tag])).toEqual([
      ["mt-1", "repeated-action"],
      ["mt-2", "repeated-action"],
    ]);
    // Another producer's tags on the same episode are not its own.
    await writeMachineTags({ source: "detector", authors: ["timeout-loop"], episodeIds: ["mt-1", "mt-2"], tags: [] });
    expect(await listMachineTagsBySource({ source: "detector", tag: "repeated-action" })).toHaveLength(2);
    expect(await listMachineTagsBySource({ source: "detector", episodeIds: ["mt-1"] })).toHaveLength(1);

    // Person tags: unchanged, and the only ones in Episode.tags, the tag counts and the taxonomy.
    expect((await getEpisodeById({ id: "mt-1" }))!.tags).toBe("misread-task");
    expect(await countTags()).toEqual([{ tag: "misread-task", count: 1 }]);
    expect((await listUsedTags()).map((t) => t.tag)).toEqual(["misread-task"]);
    const ep = await getEpisodeById({ id: "mt-1" });
    expect(ep!.annotations.map((a) => [a.tag, a.source]).sort()).toEqual([
      ["misread-task", "person"],
      ["repeated-action", "detector"],
    ]);
  });

  it("scanner tags keep their scan's provenance, apart from the detectors'", async () => {
    const provenance = { scanId: "scan-1", model: "scripted", prompt: "Did it give up?", at: "2026-12-02T16:00:00.000Z" };
    await writeMachineTags({
      source: "scanner",
      authors: ["scan-1"],
      episodeIds: ["mt-1"],
      tags: [{ episodeId: "mt-1", turnIndex: null, tag: "gave-up", author: "scan-1", provenance }],
    });
    expect((await listMachineTagsBySource({ source: "scanner" })).map((t) => [t.tag, t.author, t.provenance])).toEqual([["gave-up", "scan-1", provenance]]);
    expect(await listMachineTagsBySource({ source: "detector", tag: "gave-up" })).toEqual([]);
  });

  it("refuses a tag outside the write, a bad name or a provenance of the wrong kind", async () => {
    const tag = { episodeId: "mt-1", turnIndex: null, tag: "x", author: "d", provenance: detector("d") };
    await expect(writeMachineTags({ source: "detector", authors: ["d"], episodeIds: ["mt-2"], tags: [tag] })).rejects.toThrow(/does not cover/);
    await expect(writeMachineTags({ source: "detector", authors: ["d"], episodeIds: ["mt-1"], tags: [{ ...tag, tag: "Bad Tag" }] })).rejects.toThrow(
      /a tag is/,
    );
    await expect(writeMachineTags({ source: "scanner", authors: ["d"], episodeIds: ["mt-1"], tags: [tag] })).rejects.toThrow(/provenance/);
  });
});
