import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { iterateEpisodesWithTurns } from "@/lib/db/export-queries";
import { useFreshDb } from "@/lib/testing/store";
import { exportAtifJob, exportInspectLog } from "./export-ecosystem";
import { importLogText } from "./import";
import { importPaths } from "./import-paths";
import { ZipReader, ZipWriter } from "./inspect/zip";

// Other tools' logs in and out: Inspect AI's own test logs (../shared/ecosystem/inspect), Harbor's
// ATIF validator (../shared/ecosystem/harbor-atif) as the judge of what this project writes, and
// round trips from InterCode's logs through each format back into a fresh store.

const ECO = path.resolve(__dirname, "../../../shared/ecosystem");
const INSPECT = path.join(ECO, "inspect");
const HARBOR = path.join(ECO, "harbor-atif");
const LOGS = path.join(__dirname, "fixtures", "logs");
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "ic-eco-"));

afterAll(() => closeStore());

async function storedEpisodes() {
  const out = [];
  for await (const e of iterateEpisodesWithTurns({})) out.push(e);
  return out;
}

/** What a round trip must keep: per episode its task, reward, and each turn's action, observation, reward, thought and tokens. */
function essence(eps: Awaited<ReturnType<typeof storedEpisodes>>) {
  return eps
    .map((e) => ({
      env: e.environment,
      dataset: e.dataset,
      task: e.taskId,
      reward: e.reward,
      turns: e.turns.map((t) => ({
        action: t.action,
        observation: t.observation,
        reward: t.reward,
        thought: t.thought,
        tokensIn: t.tokensIn,
        tokensOut: t.tokensOut,
      })),
    }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** An episode of the project's JSONL with tokens and thoughts (InterCode's logs carry no token counts). */
const TOKENS_JSONL = JSON.stringify({
  format: "icstudio.episode",
  version: 1,
  id: "tok-1",
  environment: "bash",
  dataset: "demo-bash",
  taskId: "t1",
  query: "count the files",
  playerKind: "model",
  model: "m-1",
  policy: "react",
  turnLimit: 3,
  status: "submitted",
  reward: 0.5,
  success: false,
  startedAt: "2026-01-01T00:00:00.000Z",
  turns: [
    { index: 0, actor: "model", action: "ls | wc -l", observation: "3\n", ok: true, reward: 0.25, thought: "count them", tokensIn: 101, tokensOut: 7 },
    { index: 1, actor: "model", action: "submit", observation: "", ok: true, reward: 0.5, thought: "done", tokensIn: 130, tokensOut: 3 },
  ],
});

async function seedInterCode() {
  const rep = await importPaths([LOGS]);
  expect(rep.totals.added).toBe(10);
  expect((await importLogText("tokens.jsonl", TOKENS_JSONL + "\n")).added).toBe(1);
  const eps = await storedEpisodes();
  // The fixtures hold ReAct thoughts, per-turn rewards and tokens: the round trip has them to keep.
  expect(eps.some((e) => e.turns.some((t) => t.thought))).toBe(true);
  expect(eps.some((e) => e.turns.some((t) => t.tokensIn))).toBe(true);
  return eps;
}

/** The python3 that runs Harbor's validator: it needs pydantic 2. */
function pydanticPython(): string {
  for (const py of ["python3", "/usr/bin/python3"]) {
    const r = spawnSync(py, ["-c", "import pydantic, sys; sys.exit(0 if pydantic.VERSION.startswith('2') else 1)"]);
    if (r.status === 0) return py;
  }
  throw new Error("no python3 with pydantic 2 to run Harbor's ATIF validator (../shared/ecosystem/harbor-atif)");
}

describe("Inspect eval logs in", () => {
  it("imports every one of Inspect's own test logs, every sample, and flags what is odd", async () => {
    useFreshDb("eco-inspect");
    const rep = await importPaths([INSPECT, path.join(INSPECT, "log_with_nan.txt"), path.join(INSPECT, "log_invalid.txt")]);
    const by = Object.fromEntries(rep.files.map((f) => [path.basename(f.file), f]));
    expect(Object.fromEntries(Object.entries(by).map(([k, f]) => [k, f.added]))).toEqual({
      "log_formats.eval": 1,
      "log_formats.json": 1,
      "log_images_tc.json": 1,
      "log_read_sample.eval": 1,
      "log_read_sample.json": 1,
      "log_streaming.eval": 4,
      "log_tool_call_error.json": 1,
      "log_with_nan.txt": 0,
      "log_invalid.txt": 0,
    });
    for (const f of rep.files) expect(f.rejected).toEqual([]);
    // NaN metrics are read; the log simply holds no samples.
    expect(by["log_with_nan.txt"]).toMatchObject({ format: "inspect", episodes: 0 });
    expect(by["log_with_nan.txt"].error).toBeUndefined();
    expect(by["log_invalid.txt"].error).toMatch(/expected JSON: an InterCode log.*Inspect eval log.*ATIF/);
    expect(by["log_tool_call_error.json"].flags).toEqual({ "tool-result-without-call": 1, unscored: 1 });
    const eps = await storedEpisodes();
    const sample = eps.find((e) => e.sourceFile === "log_read_sample.eval")!;
    expect(sample).toMatchObject({ model: "ollama/gemma3", reward: 1, success: true, query: expect.stringContaining("Positive posts") });
    expect(sample.turns).toMatchObject([{ action: "submit Yes\n", tokensIn: 66, tokensOut: 3 }]);
    expect(sample.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    const tools = eps.find((e) => e.sourceFile === "log_tool_call_error.json")!;
    expect(tools.turns).toHaveLength(11);
    expect(tools.turns[1]).toMatchObject({ ok: false, timedOut: true });
    // Importing again stores nothing new.
    expect((await importPaths([INSPECT])).totals.added).toBe(0);
  });

  it("reads zstd entries (zip method 93) as current Inspect writes them", async () => {
    useFreshDb("eco-zstd");
    const dir = tmp();
    const src = ZipReader.open(path.join(INSPECT, "log_streaming.eval"));
    const file = path.join(dir, "log_streaming_zstd.eval");
    const w = new ZipWriter(file);
    for (const e of src.entries) {
      const data = src.read(e);
      w.addPacked(e.name, data, 93, execFileSync("zstd", ["-q", "-c", "--no-check"], { input: data }));
    }
    src.close();
    w.close();
    expect(ZipReader.open(file).entries.every((e) => e.method === 93)).toBe(true);
    const rep = await importPaths([file]);
    expect(rep.totals).toMatchObject({ added: 4, rejected: 0, failedFiles: 0 });
  });

  it("links samples to InterCode tasks (CTF ids, a question word for word), keeps unknown events, refuses a non-log", async () => {
    useFreshDb("eco-link");
    const log = (task: string, samples: unknown[]) =>
      JSON.stringify({ version: 2, status: "success", eval: { task, model: "openai/gpt-4o", created: "2025-01-01T00:00:00Z" }, samples });
    const ctf = log("inspect_evals/gdm_intercode_ctf", [
      {
        id: 12,
        epoch: 1,
        input: "Find the flag",
        messages: [
          { role: "user", content: "Find the flag" },
          { role: "assistant", content: "look around", tool_calls: [{ id: "c1", function: "bash", arguments: { cmd: "ls /ctf" } }] },
          { role: "tool", content: "flag.txt\n", tool_call_id: "c1", function: "bash" },
          { role: "assistant", content: "", tool_calls: [{ id: "c2", function: "submit", arguments: { answer: "picoCTF{x}" } }] },
          { role: "tool", content: "", tool_call_id: "c2", function: "submit" },
        ],
        scores: { includes: { value: "I", answer: "picoCTF{x}" } },
        events: [{ event: "brand_new_event", data: { n: 1 } }],
      },
    ]);
    const r1 = await importLogText("ctf.json", ctf);
    expect(r1).toMatchObject({ format: "inspect", added: 1, flags: { "unknown-events": 1 } });
    const spider = fs.readFileSync(path.join(__dirname, "../../var/datasets/intercode/sql/spider/ic_spider_dev.json"), "utf8");
    const q = (JSON.parse(spider) as { query: string }[])[3].query;
    expect(
      (
        await importLogText(
          "sql.json",
          log("my_sql_task", [
            { id: "a", input: q, messages: [{ role: "assistant", content: "", tool_calls: [{ id: "x", function: "sql", arguments: { query: "SELECT 1" } }] }] },
          ]),
        )
      ).added,
    ).toBe(1);
    const eps = await storedEpisodes();
    const c = eps.find((e) => e.sourceFile === "ctf.json")!;
    expect(c).toMatchObject({ environment: "ctf", dataset: "ctf", taskId: "12", taskIndex: 12, reward: 0 });
    expect(c.gold).toMatch(/^picoCTF\{/);
    expect(c.turns.map((t) => [t.action, t.observation, t.thought])).toEqual([
      ["ls /ctf", "flag.txt\n", "look around"],
      ["submit picoCTF{x}", "", null],
    ]);
    expect(JSON.parse(c.breakdown!).unknownEvents).toEqual([{ event: "brand_new_event", data: { n: 1 } }]);
    expect(eps.find((e) => e.sourceFile === "sql.json")).toMatchObject({ environment: "sql", dataset: "spider-dev", taskIndex: 3 });
    const bad = await importLogText("nope.eval.json", JSON.stringify({ version: 2, status: "success", eval: { task: "t" } }));
    expect(bad.error).toMatch(/not an Inspect eval log: eval\.model/);
    const dir = tmp();
    fs.writeFileSync(path.join(dir, "broken.eval"), "not a zip");
    const rep = await importPaths([path.join(dir, "broken.eval")]);
    expect(rep.files[0].error).toMatch(/not an Inspect \.eval log \(expected a zip archive holding header\.json and samples\/\)/);
  });
});

describe("ATIF in", () => {
  it("reads a trial folder, a trial with no reward file (unscored, flagged), a folder of trials as one run, and refuses a bad trajectory naming it", async () => {
    useFreshDb("eco-atif-in");
    const job = tmp();
    const traj = (session: string) => ({
      schema_version: "ATIF-v1.2",
      session_id: session,
      agent: { name: "terminus", version: "1", model_name: "gpt-5" },
      steps: [
        { step_id: 1, source: "user", message: "List the files" },
        {
          step_id: 2,
          source: "agent",
          message: "I will list",
          reasoning_content: "ls it",
          tool_calls: [{ tool_call_id: "t1", function_name: "bash", arguments: { cmd: "ls" } }],
          observation: { results: [{ source_call_id: "t1", content: "a\nb\n" }] },
          metrics: { prompt_tokens: 50, completion_tokens: 4 },
        },
      ],
    });
    for (const [name, reward] of [
      ["t-a__1", "1"],
      ["t-b__2", null],
    ] as const) {
      fs.mkdirSync(path.join(job, name, "agent"), { recursive: true });
      fs.writeFileSync(path.join(job, name, "agent", "trajectory.json"), JSON.stringify(traj(name)));
      fs.writeFileSync(path.join(job, name, "result.json"), JSON.stringify({ task_name: name.split("__")[0], trial_name: name }));
      if (reward !== null) {
        fs.mkdirSync(path.join(job, name, "verifier"));
        fs.writeFileSync(path.join(job, name, "verifier", "reward.txt"), reward + "\n");
      }
    }
    const rep = await importPaths([job]);
    expect(rep.files).toHaveLength(1);
    expect(rep.files[0]).toMatchObject({ format: "atif", episodes: 2, added: 2, flags: { unscored: 1 } });
    const eps = await storedEpisodes();
    expect(eps.map((e) => [e.taskId, e.reward, e.flags]).sort()).toEqual([
      ["t-a", 1, ""],
      ["t-b", null, "unscored"],
    ]);
    expect(eps[0].turns[0]).toMatchObject({ action: "ls", observation: "a\nb\n", thought: "ls it", rawReply: "I will list", tokensIn: 50, tokensOut: 4 });
    const bad = await importLogText("trajectory.json", JSON.stringify({ ...traj("x"), steps: "none" }));
    expect(bad.error).toMatch(/^not an ATIF trajectory: steps: /);
  });
});

describe("round trips keep every action, observation, reward, thought and token count", () => {
  it("InterCode log -> Studio -> ATIF (valid by Harbor's validator) -> Studio", async () => {
    useFreshDb("eco-rt-atif-a");
    const before = essence(await seedInterCode());
    const dir = path.join(tmp(), "job");
    const out = await exportAtifJob({ dir });
    expect(out.episodes).toBe(before.length);
    const trials = fs.readdirSync(dir);
    expect(trials).toHaveLength(before.length);
    const py = pydanticPython();
    for (const t of trials) {
      const r = spawnSync(py, ["-m", "harbor.utils.trajectory_validator", path.join(dir, t, "agent", "trajectory.json")], { cwd: HARBOR, encoding: "utf8" });
      expect(r.stdout + r.stderr, t).toMatch(/Trajectory is valid/);
      expect(r.status).toBe(0);
    }
    await closeStore();
    useFreshDb("eco-rt-atif-b");
    const rep = await importPaths([dir]);
    expect(rep.totals).toMatchObject({ added: before.length, rejected: 0, failedFiles: 0 });
    expect(essence(await storedEpisodes())).toEqual(before);
  });

  it("InterCode log -> Studio -> Inspect .eval -> Studio", async () => {
    await closeStore();
    useFreshDb("eco-rt-inspect-a");
    const before = essence(await seedInterCode());
    const file = path.join(tmp(), "export.eval");
    expect((await exportInspectLog({ out: file })).episodes).toBe(before.length);
    await closeStore();
    useFreshDb("eco-rt-inspect-b");
    const rep = await importPaths([file]);
    expect(rep.totals).toMatchObject({ added: before.length, rejected: 0, failedFiles: 0 });
    expect(essence(await storedEpisodes())).toEqual(before);
  });
});
