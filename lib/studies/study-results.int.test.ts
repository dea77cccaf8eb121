import { describe, expect, it } from "vitest";
import { createEpisode, finishEpisode } from "@/lib/db/episodes";
import { addStudyTaskActiveMs } from "@/lib/db/studies";
import { skipReason } from "@/lib/episodes/rules";
import { useTempStore } from "@/lib/testing/store";
import { inviteParticipants, getParticipant } from "./participants";
import { buildStudyResults, resultRecords } from "./study-results";
import { createStudyFromSelection } from "./studies";

useTempStore("study-results");

describe("buildStudyResults", () => {
  it("gives each participant's tasks in their order with active and wall time, skip reasons, and time per attempted task over submitted tasks only", async () => {
    const s = await createStudyFromSelection({
      name: "results",
      env: "sql",
      dataset: "demo-sql",
      selection: { kind: "indices", indices: [0, 1, 2] },
      assign: "balanced",
    });
    const [p] = await inviteParticipants(s.id, 1, null);
    const order = (await getParticipant(p.id))!.tasks;
    const ep = (taskId: string) =>
      createEpisode({
        environment: "sql",
        dataset: "demo-sql",
        taskId,
        query: "q",
        playerKind: "human",
        annotator: p.participant,
        turnLimit: 5,
        mode: "baseline",
        feedback: "none",
        studyId: s.id,
      });
    const a = await ep(order[0]);
    await finishEpisode({
      episodeId: a.id,
      outcome: { status: "submitted", reward: 1, breakdown: { kind: "sql" } as never, goldObservation: "g", agentObservation: "g" },
    });
    const b = await ep(order[1]);
    await finishEpisode({ episodeId: b.id, outcome: { status: "abandoned", reason: skipReason("no idea") } });
    await addStudyTaskActiveMs({ studyId: s.id, annotator: p.participant, taskId: order[0], ms: 9000 });
    await addStudyTaskActiveMs({ studyId: s.id, annotator: p.participant, taskId: order[1], ms: 3000 });
    await addStudyTaskActiveMs({ studyId: s.id, annotator: p.participant, taskId: order[2], ms: 1000 });

    const r = (await buildStudyResults(s.id))!;
    expect(r.rows.map((x) => [x.taskId, x.position, x.state])).toEqual([
      [order[0], 1, "submitted"],
      [order[1], 2, "skipped"],
      [order[2], 3, "working"],
    ]);
    expect(r.rows[1].skipReason).toBe("no idea");
    expect(r.rows[0]).toMatchObject({ reward: 1, solved: true, activeMs: 9000 });
    expect(r.rows[0].wallMs).toBeGreaterThanOrEqual(0);
    const sum = r.annotators[0];
    expect(sum).toMatchObject({
      annotator: p.participant,
      done: 2,
      submitted: 1,
      skipped: 1,
      solved: 1,
      activeMs: 13000,
      currentTask: order[2],
      currentActiveMs: 1000,
    });
    // 9 s over the one submitted task, not 13 s over three or 12 s over two.
    expect(sum.activeMsPerAttempted).toBe(9000);
    expect(r.tasks.find((t) => t.taskId === order[1])!.skipReasons).toEqual([`${p.participant}: no idea`]);
    expect(resultRecords(r)[0]).toMatchObject({ study: "results", annotator: p.participant, taskId: order[0] });
  });
});
