import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { closeStore } from "@/lib/db/client";
import { getEpisodeById } from "@/lib/db/episodes";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { resolveModel, type ResolvedModel } from "../models";
import { runEpisode } from "../run-episode";
import { startScriptedServer, type ChatMessageIn, type ScriptedServer } from "../scripted-server";
import type { PolicyName } from "./types";

/**
 * `eval --profile intercode`: a model is told how InterCode's environments behaved and sees the
 * observations as InterCode worded them. The scripted OpenAI-compatible server over HTTP, the real
 * environments on the local sandbox under profile intercode, a real SQLite store.
 */

const FAST_RETRY = { attempts: 2, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 };
let server: ScriptedServer;
let model: ResolvedModel;
const recorder = dbRecorder();

beforeAll(async () => {
  process.env.IC_DB = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-intercode-eval-")), "studio.db");
  server = await startScriptedServer({ rules: [] });
  model = resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey: "test" } });
});
afterAll(async () => {
  await server?.close();
  await closeStore();
});

/** Plays `replies` on `task` under profile intercode; returns the stored episode and every request's messages. */
async function play(task: Task, replies: string[], policy: PolicyName = "try-again", maxTurns = 3, refineTurns = 0) {
  const seen: { system: string; messages: ChatMessageIn[] }[] = [];
  server.setScript({
    rules: [
      {
        match: task.query,
        replies: (ctx) => {
          seen.push({ system: ctx.messages.find((m) => m.role === "system")?.content ?? "", messages: ctx.messages });
          // By request, not by the assistant messages sent: a loop may leave a reply out of the conversation.
          return replies[Math.min(seen.length - 1, replies.length - 1)]!;
        },
      },
    ],
  });
  const out = await runEpisode({
    task,
    model,
    policy,
    maxTurns,
    refineTurns,
    recorder,
    retry: FAST_RETRY,
    envOptions: { profile: "intercode", backend: "local" },
  });
  const ep = await getEpisodeById({ id: out.episodeId });
  return { out, ep: ep!, seen };
}

const lastUser = (m: ChatMessageIn[]) => m.filter((x) => x.role === "user").at(-1)!.content;

describe("eval under profile intercode: what the model is told and shown", () => {
  it("bash: each action is its own bash -c (a variable does not carry over), and the prompt says so", async () => {
    const task = loadDataset("demo-bash")[0]!;
    const { ep, seen } = await play(task, ["```bash\nexport GREETING=hi\n```", "```bash\necho [$GREETING]\n```", "submit"]);
    expect(seen[0]!.system).toMatch(/run on its own by a new `bash -c`/);
    expect(seen[0]!.system).toMatch(/variables and other shell state do not carry over/);
    expect(seen[0]!.system).not.toMatch(/keeps its working directory and variables/);
    expect(ep.turns[1]).toMatchObject({ action: "echo [$GREETING]", observation: "[]\n" });
    expect(lastUser(seen[2]!.messages)).toContain("[]");
  }, 120_000);

  it("ctf: actions are `cmd <program> <arguments>`, a bare `cmd` line is an action, run without a shell in the task's folder", async () => {
    const task = loadDataset("demo-ctf").find((t) => t.id === "base64-note")!;
    const flag = task.gold as string;
    const { out, ep, seen } = await play(task, ["The note is base64, I think.\ncmd base64 -d note.txt", `submit ${flag}`]);
    expect(seen[0]!.system).toMatch(/Each action is `cmd <program> <arguments>`/);
    expect(seen[0]!.system).toContain("cmd ls -la");
    expect(ep.turns[0]!.action).toBe("cmd base64 -d note.txt");
    expect(ep.turns[0]!.observation).toContain(flag);
    expect(out).toMatchObject({ status: "submitted", reward: 1 });
    expect(ep.turns.at(-1)).toMatchObject({ action: `submit ${flag}`, observation: "The submitted flag is correct." });
  }, 120_000);

  it("ctf: a wrong flag is a turn with its verdict and the episode goes on (InterCode's loop stopped only at a correct flag)", async () => {
    const task = loadDataset("demo-ctf").find((t) => t.id === "base64-note")!;
    const flag = task.gold as string;
    const { out, ep, seen } = await play(task, ["submit picoCTF{not_it}", "cmd base64 -d note.txt", `submit ${flag}`], "try-again", 5);
    expect(ep.turns.map((t) => [t.action, t.reward])).toEqual([
      ["submit picoCTF{not_it}", 0],
      ["cmd base64 -d note.txt", null],
      [`submit ${flag}`, 1],
    ]);
    expect(ep.turns[0]!.observation).toBe("The submitted flag is incorrect.");
    expect(lastUser(seen[1]!.messages)).toContain("The submitted flag is incorrect.");
    expect(out).toMatchObject({ status: "submitted", reward: 1, success: true, turns: 3 });
    expect(ep).toMatchObject({ turnCount: 3, solvedAtTurn: 3 });
  }, 120_000);

  it("ctf: wrong flags up to the turn limit end the episode at 0 with no submit forced as a turn", async () => {
    const task = loadDataset("demo-ctf").find((t) => t.id === "base64-note")!;
    const { out, ep } = await play(task, ["submit picoCTF{one}", "submit picoCTF{two}"], "try-again", 2);
    expect(ep.turns.map((t) => t.action)).toEqual(["submit picoCTF{one}", "submit picoCTF{two}"]);
    expect(out).toMatchObject({ status: "submitted", reward: 0, success: false, turns: 2 });
  }, 120_000);

  it("react: a long observation is shown cut to its first 350 characters, as InterCode's ReAct prompt cut it, and stored whole", async () => {
    const task = loadDataset("demo-bash")[0]!;
    const { ep, seen } = await play(task, ["Thought: list numbers.\nAction: execute[seq 1 200]", "Thought: done.\nAction: submit"], "react", 3);
    expect(ep.turns[0]).toMatchObject({ action: "execute[seq 1 200]", observation: Array.from({ length: 200 }, (_, i) => `${i + 1}\n`).join("") });
    expect(lastUser(seen[1]!.messages)).toBe(`Observation: ${ep.turns[0]!.observation.slice(0, 350)}`);
  }, 120_000);

  it("plan & solve: steps as `Step:` / `Observation:` lines without the plan reply, every turn scored but never shown, an unusable reply uses up its step, refine only while unsolved, the best turn's reward", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const count = "```sql\nSELECT count(*) FROM stations\n```";
    const { out, ep, seen } = await play(
      task,
      ["1. Count the stations. 2. Check the count\nagain.", count, "I am not sure what to run.", "```sql\nSELECT name FROM stations LIMIT 1\n```", count],
      "plan-solve",
      5,
      2,
    );
    // The plan is read as InterCode read it (a step runs to the next ` <number>.`, over lines) and left out of the conversation.
    expect(lastUser(seen[1]!.messages)).toBe("Step: Count the stations.");
    expect(seen[1]!.messages.some((m) => m.role === "assistant")).toBe(false);
    const counted = ep.turns[0]!.observation;
    expect(counted).toMatch(/^\[\(\d+,\)\]$/);
    expect(lastUser(seen[2]!.messages)).toBe(`Observation: ${counted}\nStep: Check the count\nagain.`);
    // The reply with no action used up the last step; the plan ended unsolved (InterCode scored it 0), so refine begins.
    expect(lastUser(seen[3]!.messages)).toMatch(/^The plan is done and the task is not solved yet\. .*\n\nYour reply could not be used: /s);
    expect(lastUser(seen[4]!.messages)).toBe(ep.turns[2]!.observation);
    for (const s of seen) expect(lastUser(s.messages)).not.toMatch(/score/);
    expect(ep.turns.map((t) => [t.action === "", t.ok, t.reward])).toEqual([
      [false, true, 1],
      [true, false, null],
      [false, true, 0],
      [false, true, 1],
    ]);
    // Refine stopped at its first reward of 1; the episode's reward is its best turn's.
    expect(out).toMatchObject({ status: "submitted", reward: 1, success: true, turns: 4 });
  }, 120_000);

  it("plan & solve: a plan whose last step solves the task has no refine phase, and the best turn's reward stands when a later step undoes it", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const count = "```sql\nSELECT count(*) FROM stations\n```";
    const other = "```sql\nSELECT name FROM stations LIMIT 1\n```";
    const solvedLast = await play(task, ["1. Look.\n2. Count.", other, count, other], "plan-solve", 5, 2);
    expect(solvedLast.ep.turns.map((t) => t.reward)).toEqual([0, 1]);
    expect(solvedLast.seen).toHaveLength(3);
    const undone = await play(task, ["1. Count.\n2. Look.", count, other], "plan-solve", 5, 0);
    expect(undone.ep.turns.map((t) => t.reward)).toEqual([1, 0]);
    expect(undone.out).toMatchObject({ reward: 1, success: true });
  }, 120_000);

  it("sql: rows are shown as Python's str() of the list of row tuples, and the prompt says so", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const { ep, seen } = await play(task, ["```sql\nSELECT station_id, name FROM stations ORDER BY station_id LIMIT 2\n```", "submit"]);
    expect(seen[0]!.system).toMatch(/as a Python list of tuples, such as \[\(1, 'a'\), \(2, 'b'\)\]/);
    expect(ep.turns[0]!.observation).toMatch(/^\[\(1, '[^']+'\), \(2, '[^']+'\)\]$/);
    expect(lastUser(seen[1]!.messages)).toContain(ep.turns[0]!.observation);
  }, 120_000);

  it("python: results as {'output': ..., 'error': ...}, a failing def answered with InterCode's test feedback", async () => {
    const task = loadDataset("demo-python").find((t) => t.id === "reverse-words")!;
    const { ep, seen } = await play(task, ["```python\ndef reverse_words(s):\n    return s\n```", "```python\n1 + 1\n```", "submit reverse_words"]);
    expect(seen[0]!.system).toMatch(/\{'output': <what was printed>, 'error': <the error, if any>\}/);
    expect(seen[0]!.system).toMatch(/when one fails, you are told so in place of the action's output/);
    expect(ep.turns[0]!.observation).toBe("Test case did not pass. Please try again.");
    expect(lastUser(seen[1]!.messages)).toContain("Test case did not pass. Please try again.");
    expect(ep.turns[1]!.observation).toBe("{'output': '2\\n', 'error': ''}");
  }, 120_000);

  it("react: execute[...] actions stored as written, the observation shown as InterCode's text, and the submit forced at the turn limit stored as a last turn the count leaves out", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const { out, ep, seen } = await play(task, ["Thought: count them.\nAction: execute[SELECT count(*) FROM stations]"], "react", 2);
    expect(seen[0]!.system).toMatch(/Action: execute\[<the one action to run>\]/);
    expect(out).toMatchObject({ status: "submitted", turns: 2, reward: 1 });
    // Stored as InterCode's ReAct logged it: the action as written, not the SQL it ran.
    expect(ep.turns.map((t) => t.action)).toEqual(["execute[SELECT count(*) FROM stations]", "execute[SELECT count(*) FROM stations]", "submit"]);
    expect(ep.turns[0]!.observation).toMatch(/^\[\(\d+,\)\]$/);
    expect(ep.turns[0]!.thought).toBe("count them.");
    // The model is told the observation's text itself, on an Observation: line.
    expect(lastUser(seen[1]!.messages)).toBe(`Observation: ${ep.turns[0]!.observation}`);
    expect(ep.turns[2]).toMatchObject({ observation: ep.turns[1]!.observation, reward: 1 });
    expect(ep).toMatchObject({ turnCount: 3, turnsTaken: 2, solvedAtTurn: 2 });
  }, 120_000);
});
