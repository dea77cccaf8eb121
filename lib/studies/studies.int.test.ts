import { describe, expect, it } from "vitest";
import { appendTurn, createEpisode, finishEpisode, markInterruptedEpisodes, type NewEpisodeInput } from "@/lib/db/episodes";
import { useTempStore } from "@/lib/testing/store";
import { skipReason } from "@/lib/episodes/rules";
import { playUrl } from "@/lib/tasks/task-ref";
import { createStudyFromSelection, episodeFeedback, getStudy, nextStudyTask, type StudyView } from "./studies";

useTempStore("studies");

const SUBMITTED = { status: "submitted", reward: 1, breakdown: { kind: "sql" } } as const;

async function episodeOn(study: StudyView, taskId: string, annotator: string) {
  const input: NewEpisodeInput = {
    environment: "sql",
    dataset: study.config.dataset,
    taskId,
    query: "q",
    playerKind: "human",
    annotator,
    turnLimit: study.config.turnLimit,
    mode: "baseline",
    feedback: episodeFeedback(study.config.feedback),
    studyId: study.id,
  };
  return createEpisode(input);
}

describe("nextStudyTask", () => {
  it("counts a task done when it was submitted or skipped with the Skip reason; any other abandon gives it back", async () => {
    const created = await createStudyFromSelection({ name: "progress", env: "sql", dataset: "demo-sql", selection: { kind: "slice", from: 0, count: 5 } });
    const study = (await getStudy(created.id))!;
    const tasks = study.config.tasks;
    expect(tasks).toHaveLength(5);

    const fresh = await nextStudyTask(study.id, "ann");
    expect(fresh).toMatchObject({ position: 0, total: 5, done: 0, resumeEpisodeId: null });
    expect(new URL(fresh.href!, "http://x").searchParams.get("i")).toBe("0");

    // Task 0 submitted, task 1 skipped with a reason, task 2 skipped with an empty reason (Skip still pressed).
    const e0 = await episodeOn(study, tasks[0], "ann");
    await appendTurn({ episodeId: e0.id, turn: { index: 0, actor: "human", action: "SELECT 1", observation: "1", ok: true } });
    await finishEpisode({ episodeId: e0.id, outcome: SUBMITTED });
    const e1 = await episodeOn(study, tasks[1], "ann");
    await finishEpisode({ episodeId: e1.id, outcome: { status: "abandoned", reason: skipReason("the join is beyond me") } });
    const e2 = await episodeOn(study, tasks[2], "ann");
    await finishEpisode({ episodeId: e2.id, outcome: { status: "abandoned", reason: skipReason("") } });
    // Task 3 abandoned without a skip: no reason (e.g. a client that went away), then a restart.
    const e3 = await episodeOn(study, tasks[3], "ann");
    await appendTurn({ episodeId: e3.id, turn: { index: 0, actor: "human", action: "SELECT 2", observation: "2", ok: true } });
    await finishEpisode({ episodeId: e3.id, outcome: { status: "abandoned" } });
    let next = await nextStudyTask(study.id, "ann");
    expect(next).toMatchObject({ position: 3, done: 3, resumeEpisodeId: null });
    // A finished episode cannot be resumed: the task comes back as a fresh episode.
    expect(new URL(next.href!, "http://x").searchParams.get("episode")).toBeNull();
    expect(next.href!.startsWith(`${playUrl("sql", "demo-sql", tasks[3])}?`)).toBe(true);
    const e3b = await episodeOn(study, tasks[3], "ann");
    await finishEpisode({ episodeId: e3b.id, outcome: { status: "abandoned", reason: "restart" } });
    expect(await nextStudyTask(study.id, "ann")).toMatchObject({ position: 3, done: 3, resumeEpisodeId: null });
    // A sandbox error does not settle it either.
    const e3c = await episodeOn(study, tasks[3], "ann");
    await finishEpisode({ episodeId: e3c.id, outcome: { status: "error", reason: "the sandbox died" } });
    expect(await nextStudyTask(study.id, "ann")).toMatchObject({ position: 3, done: 3 });

    // Left running (idle sandbox closed, tab closed): the study resumes that episode; after a server
    // restart (interrupted) too.
    const e3d = await episodeOn(study, tasks[3], "ann");
    next = await nextStudyTask(study.id, "ann");
    expect(next).toMatchObject({ position: 3, done: 3, resumeEpisodeId: e3d.id });
    const q = new URL(next.href!, "http://x").searchParams;
    expect([q.get("study"), q.get("i"), q.get("episode")]).toEqual([study.id, "3", e3d.id]);
    await markInterruptedEpisodes();
    expect(await nextStudyTask(study.id, "ann")).toMatchObject({ position: 3, resumeEpisodeId: e3d.id });

    // Another annotator's progress is their own.
    expect(await nextStudyTask(study.id, "someone-else")).toMatchObject({ position: 0, done: 0 });

    // Submitting the task that came back, then the last one, finishes the study.
    await finishEpisode({ episodeId: e3d.id, outcome: SUBMITTED });
    const e4 = await episodeOn(study, tasks[4], "ann");
    await finishEpisode({ episodeId: e4.id, outcome: SUBMITTED });
    expect(await nextStudyTask(study.id, "ann")).toEqual({ position: 5, total: 5, done: 5, href: null, resumeEpisodeId: null });
  });
});
