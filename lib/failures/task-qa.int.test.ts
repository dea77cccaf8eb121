import { beforeAll, describe, expect, it } from "vitest";
import { insertEpisodesBulk, type BulkEpisode, type BulkTurn } from "@/lib/db/bulk-import";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { detectorTagsOf } from "./machine-tags";
import { listTaskSuspects, taskSuspectsCsv } from "./task-qa";

let n = 0;
const turn = (index: number, action: string, observation = "", ok: boolean | null = true): BulkTurn => ({
  index,
  actor: "model",
  action,
  observation,
  ok,
  reward: null,
});
/** An episode as an import stores it, with the detectors' tags computed as the importer does. */
function episode(e: Partial<BulkEpisode> & Pick<BulkEpisode, "environment" | "taskId" | "turns">): BulkEpisode {
  const id = `qa-${++n}`;
  const base: BulkEpisode = {
    id,
    sourceKey: `test:${id}`,
    dataset: `demo-${e.environment}`,
    taskIndex: 0,
    query: "the task",
    playerKind: "model",
    annotator: null,
    model: "m1",
    policy: "try-again",
    turnLimit: 10,
    status: "submitted",
    reward: 0,
    success: false,
    solvedAtTurn: null,
    startedAt: 1_700_000_000_000,
    durationMs: 10,
    ...e,
  };
  return { ...base, detectorTags: detectorTagsOf(base) };
}

describe.each(storeEngines())("task QA on %s", (engine) => {
  useTempStore("task-qa", engine);
  beforeAll(async () => {
    const flag = "picoCTF{n0t_th3_g0ld}";
    await insertEpisodesBulk({
      episodes: [
        // Two models agree on a flag the gold does not give: a suspect gold.
        ...["m1", "m2"].map((model) =>
          episode({ environment: "ctf", taskId: "1", model, gold: "picoCTF{g0ld}", turns: [turn(0, "python3 solve.py", flag), turn(1, `submit ${flag}`)] }),
        ),
        // One model alone against the gold is a wrong answer, not a suspect.
        episode({ environment: "ctf", taskId: "2", gold: "picoCTF{g0ld}", turns: [turn(0, "python3 solve.py", flag), turn(1, `submit ${flag}`)] }),
        // Two models agree with each other and with the gold: nothing to see.
        ...["m1", "m2"].map((model) =>
          episode({
            environment: "sql",
            taskId: "3",
            model,
            goldObservation: "[(1,)]",
            agentObservation: "[(1,)]",
            reward: 1,
            success: true,
            turns: [turn(0, "select count(*) from t", "[(1,)]"), turn(1, "submit")],
          }),
        ),
        // Two models agree on the same output, the gold gives another: a suspect gold.
        ...["m1", "m3"].map((model) =>
          episode({
            environment: "sql",
            taskId: "4",
            model,
            goldObservation: "[(2,)]",
            agentObservation: "[(5,)]",
            turns: [turn(0, "select count(*) from t", "[(5,)]"), turn(1, "submit")],
          }),
        ),
        // Solved by typing the answer in: reward hacking.
        episode({
          environment: "sql",
          taskId: "5",
          reward: 1,
          success: true,
          goldObservation: "[('France',)]",
          agentObservation: "[('France',)]",
          turns: [turn(0, "SELECT 'France'", "[('France',)]"), turn(1, "submit")],
        }),
        // The same hard-coded answer that failed is not reward hacking.
        episode({
          environment: "sql",
          taskId: "6",
          goldObservation: "[('Spain',)]",
          agentObservation: "[('France',)]",
          turns: [turn(0, "SELECT 'France'", "[('France',)]"), turn(1, "submit")],
        }),
      ],
    });
  });

  it("lists the tasks whose gold two models contradict alike, and the tasks solved by reward hacking, with the evidence", async () => {
    const { suspects, counts } = await listTaskSuspects({});
    expect(suspects.map((s) => [s.environment, s.taskId, s.kind])).toEqual([
      ["ctf", "1", "models-agree-against-gold"],
      ["sql", "4", "models-agree-against-gold"],
      ["sql", "5", "reward-hacking"],
    ]);
    expect(counts).toEqual({ "gold-check-failed": 0, "models-agree-against-gold": 2, "reward-hacking": 1 });
    expect(suspects[0].evidence).toBe('2 models (m1, m2) gave the same answer "picoCTF{n0t_th3_g0ld}"; the gold gives "picoCTF{g0ld}"');
    expect(suspects[0].episodes.map((e) => [e.model, e.turn])).toEqual([
      ["m1", 1],
      ["m2", 1],
    ]);
    expect(suspects[2].evidence).toMatch(/^1 solved episode\(s\) flagged by sql-hardcoded-answer: literal answer: SELECT 'France'/);
    expect(suspects[2].episodes[0].turn).toBe(0);
    // Filters narrow it; a gold-check report adds its failures.
    expect((await listTaskSuspects({ filters: { environment: "ctf" } })).suspects).toHaveLength(1);
    const withGold = await listTaskSuspects({
      filters: { environment: "ctf" },
      goldCheck: { environment: "ctf", dataset: "demo-ctf", report: { failures: [{ taskId: "9", reward: 0, reason: 'flag "x" does not match' }] } },
    });
    expect(withGold.counts["gold-check-failed"]).toBe(1);
    const csv = taskSuspectsCsv(suspects).split("\r\n");
    expect(csv[0]).toBe("environment,dataset,taskId,kind,evidence,episodes");
    expect(csv[1]).toBe(
      `ctf,demo-ctf,1,models-agree-against-gold,"2 models (m1, m2) gave the same answer ""picoCTF{n0t_th3_g0ld}""; the gold gives ""picoCTF{g0ld}""",${suspects[0].episodes.map((e) => e.episodeId).join(" ")}`,
    );
  });
});
