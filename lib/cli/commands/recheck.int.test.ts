import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";

const root = path.resolve(__dirname, "../../..");
const dir = mkdtempSync(path.join(os.tmpdir(), "ic-recheck-"));

/**
 * A Try Again log of our own in InterCode's results format, on demo-python's first task
 * (reverse-words): turn 0 fails all tests, turn 1 prints (wrapped in print, scored 0 untested),
 * turn 2 passes; turn 1's recorded output is deliberately wrong, so one turn disagrees.
 */
const log = {
  "0": {
    environment: "ic_python",
    dataset: "demo",
    task_id: 0,
    query: "Write a function reverse_words(s) that returns the words of the sentence s in reverse order, joined by single spaces.",
    turn_history: {
      actions: ["def rev(s):\n    return s[::-1]", "print('checking')", "def rev(s):\n    return ' '.join(s.split()[::-1])"],
      observations: ["Test case did not pass. Please try again.", "{'output': 'something else\\n', 'error': ''}", "{'output': '', 'error': ''}"],
      rewards: [0, 0, 1],
      valid_action: [true, true, true],
    },
    summary: { max_reward: 1, max_reward_idx: 2, turns_taken: 3, turns_max: 3 },
  },
};

/** `icstudio recheck <file> --dataset <dataset> --backend local --json` in its own process. */
function recheck(file: string, dataset: string) {
  return spawnSync("npm", ["run", "-s", "icstudio", "--", "recheck", file, "--dataset", dataset, "--backend", "local", "--json"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, IC_SANDBOX: "local", IC_DB: path.join(dir, "store.db") },
    timeout: 240_000,
  });
}

describe("icstudio recheck --json", () => {
  it("reports per file and environment, and lists each disagreeing turn with a category", () => {
    const file = path.join(dir, "ic_python_multiturn_fixture-model_3_turns.json");
    writeFileSync(file, JSON.stringify(log));
    const r = recheck(file, "demo-python");
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.files).toEqual([
      expect.objectContaining({
        file,
        episodes: 1,
        turns: 3,
        rewardCompared: 3,
        rewardAgree: 1,
        observationAgree: 2 / 3,
        categories: { "environment content": 1 },
      }),
    ]);
    expect(out.environments).toEqual([expect.objectContaining({ env: "python", episodes: 1, turns: 3, observationAgree: 2 / 3 })]);
    expect(out.disagreements).toEqual([
      {
        file,
        episode: "task 0",
        turn: 1,
        category: "environment content",
        recorded: { observation: "{'output': 'something else\\n', 'error': ''}", reward: 0 },
        replayed: { observation: "{'output': 'checking\\nNone\\n', 'error': ''}", reward: 0 },
      },
    ]);
  }, 300_000);

  it("a SQL ReAct log: only its submit is compared (the 0 before it was never a score), and a table the database lacks is the log's environment, with the evidence", () => {
    const tasks = loadDataset("demo-sql");
    const at = tasks.findIndex((t) => t.id === "bike-01");
    const task = tasks[at]!;
    const gold = String(task.gold);
    const reactLog = {
      [at]: {
        environment: "ic_sql",
        task_id: at,
        query: task.query,
        turn_history: {
          actions: ["execute[SELECT player_name FROM poker_players]", `execute[${gold}]`, "submit"],
          thoughts: ["Look at the players.", "Count them.", "Done."],
          observations: ["[('player1',), ('player2',)]", "[(8,)]", "[(8,)]"],
          rewards: [0, 0, 1],
          valid_action: [true, true, true],
        },
        summary: { max_reward: 1, max_reward_idx: 2, turns_taken: 3, turns_max: 10 },
      },
    };
    const file = path.join(dir, "sql_react_10_turns.json");
    writeFileSync(file, JSON.stringify(reactLog));
    const r = recheck(file, "demo-sql");
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.files).toEqual([expect.objectContaining({ file, episodes: 1, turns: 3, rewardCompared: 1, rewardAgree: 1 })]);
    expect(out.disagreements).toEqual([
      expect.objectContaining({
        turn: 0,
        category: "the log's environment differed",
        evidence: expect.stringMatching(/^table poker_players: the log's query read it and got rows, the task's database \S+ has no such table$/),
      }),
    ]);
  }, 300_000);

  it("replays a bash log's episodes in one sandbox, as InterCode's container lived across its tasks", () => {
    // Task 8 leaves a file in /root (git-ignored: InterCode's reset between tasks kept it); task 26 reads it.
    const turn = (action: string, observation: string) => ({ actions: [action], observations: [observation], rewards: [0.67], valid_action: [true] });
    const bashLog = {
      "8": {
        environment: "ic_bash",
        task_id: 8,
        query: 'Print numbers 1 through 10 separated by ":"',
        turn_history: turn("echo carried > /root/note.txt", ""),
        summary: { max_reward: 0.67, max_reward_idx: 0, turns_taken: 1, turns_max: 1 },
      },
      "26": {
        environment: "ic_bash",
        task_id: 26,
        query: "Calculate the sum of all the numbers from 1 to 10",
        turn_history: turn("cat /root/note.txt", "carried\n"),
        summary: { max_reward: 0.67, max_reward_idx: 0, turns_taken: 1, turns_max: 1 },
      },
    };
    const file = path.join(dir, "ic_bash_multiturn_fixture-model_1_turns_fs_4.json");
    writeFileSync(file, JSON.stringify(bashLog));
    const r = recheck(file, "nl2bash-fs4");
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.disagreements).toEqual([]);
    expect(out.files).toEqual([expect.objectContaining({ episodes: 2, turns: 2, observationAgree: 1, rewardAgree: 1 })]);
  }, 300_000);
});
