import { describe, expect, it } from "vitest";
import { pairRuns } from "./pair-runs";
import type { RunTaskView } from "./view-types";

function row(taskId: string, status: string, success: boolean, episodeId: string | null = `${taskId}-${status}-${success}`): RunTaskView {
  return {
    taskId,
    episodeId,
    status,
    reward: success ? 1 : 0,
    success,
    turns: 1,
    solvedAtTurn: null,
    group: null,
    errorReason: null,
    tokensIn: 0,
    tokensOut: 0,
    costUsd: 0,
    startedAt: 0,
    endedAt: 0,
    watchHref: null,
  };
}

describe("pairRuns", () => {
  it("splits the tasks both runs finished into both / first only / second only / neither, and counts the rest apart", () => {
    const a = [
      row("t1", "submitted", true),
      row("t2", "submitted", true),
      row("t3", "submitted", false),
      row("t4", "error", false),
      row("t5", "running", false),
      row("t6", "submitted", true),
    ];
    const b = [
      row("t1", "submitted", true),
      row("t2", "abandoned", false),
      row("t3", "submitted", true),
      row("t4", "submitted", false),
      row("t5", "submitted", true),
      row("t7", "pending", false, null),
    ];
    const p = pairRuns(a, b);
    expect(p.both.map((x) => x.taskId)).toEqual(["t1"]);
    expect(p.aOnly.map((x) => x.taskId)).toEqual(["t2"]);
    expect(p.bOnly.map((x) => x.taskId)).toEqual(["t3"]);
    expect(p.neither.map((x) => x.taskId)).toEqual(["t4"]);
    // t5 running in a, t6 not in b: not paired.
    expect(p.unpaired).toBe(2);
    expect(p.aOnly[0]).toEqual({
      taskId: "t2",
      group: null,
      a: { episodeId: "t2-submitted-true", reward: 1, success: true },
      b: { episodeId: "t2-abandoned-false", reward: 0, success: false },
    });
  });
});
