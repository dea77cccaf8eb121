import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { getEpisodeById, listEpisodes } from "@/lib/db/episodes";
import { getRawDb } from "@/lib/db/sqlite";
import { useTempStore } from "@/lib/testing/store";
import { taskForEpisode } from "@/lib/replay/episode-task";
import { importLogText } from "./import";

// Logs written here in InterCode's formats, over the real task sets in ../shared (read at run
// time, not copied into the project): a Python log whose task ids are positions in the MBPP file,
// a CTF log keyed by the task set's own ids, one record whose question was reworded, and a Plan &
// Solve record with no action and one reward.
const mbpp = JSON.parse(fs.readFileSync(path.join(sharedIntercodeDir(), "python/mbpp/ic_mbpp.json"), "utf8")) as Array<{ task_id: number; query: string }>;
const ctf = JSON.parse(fs.readFileSync(path.join(sharedIntercodeDir(), "ctf/ic_ctf.json"), "utf8")) as Array<{ task_id: number; query: string }>;

const results = (env: string, taskId: number, query: string, actions: string[], rewards: number[]) => ({
  environment: `ic_${env}`,
  task_id: taskId,
  query,
  turn_history: { actions, observations: actions.map(() => "{'output': '', 'error': ''}"), rewards, valid_action: actions.map(() => true) },
  summary: { max_reward: Math.max(0, ...rewards), max_reward_idx: 0, turns_taken: actions.length, turns_max: 3 },
});

async function episodeBy(filters: { environment: string; taskId: string }) {
  const page = await listEpisodes({ filters });
  expect(page.total, JSON.stringify(filters)).toBe(1);
  return (await getEpisodeById({ id: page.rows[0].id }))!;
}

describe("task links at import: each log format's id rule, checked against the task's question", () => {
  useTempStore("task-links");

  it("a Python log's task ids are positions in the MBPP file: each episode is stored under MBPP's own task_id", async () => {
    const log = {
      0: results("python", 0, mbpp[0].query, ["def f(x): return x"], [0]),
      1: results("python", 1, mbpp[1].query, ["def g(x): return x"], [1]),
      // The same position with its question reworded: it keeps the rule's link and is flagged.
      5: results("python", 5, `${mbpp[5].query} Use recursion.`, ["def h(x): return x"], [0]),
    };
    const report = await importLogText("ic_python_multiturn_gpt-4_3_turns.json", JSON.stringify(log));
    expect(report).toMatchObject({ episodes: 3, added: 3, rejected: [], flags: { "task-text-differs": 1 } });
    const first = await episodeBy({ environment: "python", taskId: String(mbpp[0].task_id) });
    expect([first.taskId, first.taskIndex, first.query, first.flags]).toEqual(["1", 0, mbpp[0].query, ""]);
    const second = await episodeBy({ environment: "python", taskId: String(mbpp[1].task_id) });
    expect([second.taskId, second.taskIndex, second.success]).toEqual(["2", 1, true]);
    const reworded = await episodeBy({ environment: "python", taskId: String(mbpp[5].task_id) });
    expect([reworded.taskId, reworded.taskIndex, reworded.flags]).toEqual(["6", 5, "task-text-differs"]);
    // MBPP's task 1 has no episode from this log other than the log's task 0.
    expect((await listEpisodes({ filters: { environment: "python", taskId: "0" } })).total).toBe(0);
  });

  it("a CTF log names the task set's own ids; a reworded question keeps its id and is flagged, never relinked", async () => {
    const log = {
      0: results("ctf", ctf[1].task_id, ctf[1].query, ["cmd ls"], [0]),
      // Reworded so that it reads like task 1's question: it stays on task 2.
      1: results("ctf", ctf[2].task_id, ctf[1].query, ["cmd ls"], [0]),
    };
    const report = await importLogText("ic_ctf_gpt-4_3_turns.json", JSON.stringify(log));
    expect(report).toMatchObject({ episodes: 2, rejected: [], flags: { "task-text-differs": 1 } });
    const own = await episodeBy({ environment: "ctf", taskId: String(ctf[1].task_id) });
    expect(own.flags).toBe("");
    const reworded = await episodeBy({ environment: "ctf", taskId: String(ctf[2].task_id) });
    expect(reworded.flags).toBe("task-text-differs");
  });

  it("a record with no action and one reward (SQL Plan & Solve task 93) is stored as logged and flagged no-actions", async () => {
    const spider = JSON.parse(fs.readFileSync(path.join(sharedIntercodeDir(), "sql/spider/ic_spider_dev.json"), "utf8")) as Array<{ query: string }>;
    const run = {
      meta: { data_path: "./data/sql/spider/ic_spider_dev.json", env: "sql", refine: false, refine_turns: 0 },
      logs: {
        93: {
          environment: "ic_sql",
          task_id: 93,
          query: spider[93].query,
          turn_history: { actions: [], observations: [], rewards: [0], valid_action: [] },
          summary: { max_reward: 0, max_reward_idx: 0 },
        },
      },
    };
    const report = await importLogText("ic_sql_plan_solve.json", JSON.stringify(run));
    expect(report).toMatchObject({ format: "run", episodes: 1, added: 1, rejected: [], flags: { "no-actions": 1 } });
    const ep = await episodeBy({ environment: "sql", taskId: "93" });
    expect([ep.policy, ep.reward, ep.success, ep.turns.length, ep.flags]).toEqual(["plan-solve", 0, false, 0, "no-actions"]);
  });

  it("the migration relinks Python episodes stored under their log's position to MBPP's task_id, once", async () => {
    const sql = fs.readFileSync(path.resolve(__dirname, "../../prisma/migrations/20261202010000_python_task_links/migration.sql"), "utf8");
    const first = await episodeBy({ environment: "python", taskId: "1" });
    const db = getRawDb();
    // As the importer stored it before: the log's position as the task id.
    db.prepare(`UPDATE "Episode" SET "taskId" = '0' WHERE "id" = ?`).run(first.id);
    db.exec(sql);
    expect((await getEpisodeById({ id: first.id }))!.taskId).toBe("1");
    db.exec(sql); // a second run changes nothing
    expect((await getEpisodeById({ id: first.id }))!.taskId).toBe("1");
    const reworded = await episodeBy({ environment: "python", taskId: "6" });
    expect(reworded.taskIndex).toBe(5);
  });

  it("an episode imported without its task set (task-unlinked) is read by its position, not its log's id taken for MBPP's", () => {
    const ep = { dataset: "mbpp", taskId: "5", taskIndex: 5 };
    expect(taskForEpisode({ ...ep, flags: "task-unlinked" }).id).toBe(String(mbpp[5].task_id));
    // A linked episode's id is the task set's own.
    expect(taskForEpisode({ ...ep, flags: "" }).id).toBe("5");
  });
});
