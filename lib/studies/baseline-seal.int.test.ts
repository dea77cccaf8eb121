import { describe, expect, it } from "vitest";
import { createEpisode, finishEpisode, markInterruptedEpisodes, type NewEpisodeInput } from "@/lib/db/episodes";
import { useTempStore } from "@/lib/testing/store";
import { ConflictError } from "@/lib/errors";
import { assertTaskUnsealed, findSeal, listSealedTaskKeys, sealKey } from "./baseline-seal";

useTempStore("seal");

const task = { environment: "bash", dataset: "demo-bash", taskId: "top-three-ips" };
const other = { environment: "bash", dataset: "demo-bash", taskId: "count-errors" };
const episode = (over: Partial<NewEpisodeInput>): NewEpisodeInput => ({
  ...task,
  taskIndex: 3,
  query: "q",
  gold: "g",
  playerKind: "human",
  turnLimit: 10,
  ...over,
});

describe("the baseline seal", () => {
  it("holds while a baseline episode on the task is running or interrupted, for every other episode, and lifts on submit or skip", async () => {
    // Play episodes never seal.
    await createEpisode(episode({ mode: "play" }));
    expect(await findSeal(task)).toBeNull();
    await expect(assertTaskUnsealed(task, "x")).resolves.toBeUndefined();

    const a = await createEpisode(episode({ mode: "baseline", feedback: "none", annotator: "ann-a" }));
    expect(await findSeal(task)).toEqual({ kind: "baseline", episodeId: a.id, annotator: "ann-a" });
    expect(await findSeal(task, a.id)).toBeNull(); // not sealed against itself
    expect(await findSeal(other)).toBeNull(); // only that task
    expect([...(await listSealedTaskKeys())]).toEqual([sealKey(task)]);
    await expect(assertTaskUnsealed(task, "the gold solution")).rejects.toThrow(ConflictError);
    await expect(assertTaskUnsealed(task, "the gold solution")).rejects.toThrow(
      new RegExp(
        `the gold solution is refused: task demo-bash:top-three-ips \\(bash\\) is sealed by the unsubmitted baseline episode ${a.id} \\(annotator ann-a\\)`,
      ),
    );

    // A server restart marks it interrupted: still sealed (it resumes).
    await markInterruptedEpisodes();
    expect(((await findSeal(task)) as { episodeId?: string } | null)?.episodeId).toBe(a.id);

    // A second annotator's episode: each seals the task against the other.
    const b = await createEpisode(episode({ mode: "baseline", feedback: "none", annotator: "ann-b" }));
    expect(((await findSeal(task, a.id)) as { episodeId?: string } | null)?.episodeId).toBe(b.id);
    expect(((await findSeal(task, b.id)) as { episodeId?: string } | null)?.episodeId).toBe(a.id);

    await finishEpisode({
      episodeId: a.id,
      outcome: {
        status: "submitted",
        reward: 1,
        breakdown: { kind: "bash", fileChanges: 0.33, fileContents: 0.33, output: 0.34 } as never,
        goldObservation: "o",
        agentObservation: "o",
      },
    });
    expect(((await findSeal(task)) as { episodeId?: string } | null)?.episodeId).toBe(b.id);
    await finishEpisode({ episodeId: b.id, outcome: { status: "abandoned", reason: "skip" } });
    expect(await findSeal(task)).toBeNull();
    expect((await listSealedTaskKeys()).size).toBe(0);
  });
});
