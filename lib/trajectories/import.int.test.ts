import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { getRawDb } from "@/lib/db/sqlite";
import { StorageError } from "@/lib/errors";
import { appendTurn, createEpisode, deleteEpisodeById, getEpisodeById, listEpisodes } from "@/lib/db/episodes";
import { importPaths } from "./import-paths";
import { parseLogText } from "./parse-log";
import { inferMetaFromFileName } from "./intercode";
import { computeStats } from "@/lib/stats/measures";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { useFreshDb } from "@/lib/testing/store";

const sample = path.join(sharedIntercodeDir(), "results-sample");

describe("file names", () => {
  it("infer model, policy, turn limit and dataset", () => {
    expect(inferMetaFromFileName("ic_sql_multiturn_gpt-4_10_turns.json")).toEqual({ environment: "sql", model: "gpt-4", policy: "try-again", turnLimit: 10 });
    expect(inferMetaFromFileName("ic_bash_multiturn_gpt-4_10_turns_fs_4.json")).toMatchObject({
      environment: "bash",
      dataset: "nl2bash-fs4",
      model: "gpt-4",
      policy: "try-again",
      turnLimit: 10,
    });
    expect(inferMetaFromFileName("ic_sql_react_gpt-3.5_10_turns.json")).toMatchObject({ model: "gpt-3.5", policy: "react", turnLimit: 10 });
    expect(inferMetaFromFileName("ic_sql_plan_solve_gpt-3.5_turns_5.json")).toMatchObject({ policy: "plan-solve", model: "gpt-3.5", turnLimit: 5 });
    expect(inferMetaFromFileName("ic_sql_singleturn_text-bison-001.json")).toMatchObject({ model: "text-bison-001", policy: "single-turn", turnLimit: 1 });
    expect(inferMetaFromFileName("ic_sql_multiturn_human_10_turns.json")).toMatchObject({ human: true, model: null, policy: null, turnLimit: 10 });
    expect(inferMetaFromFileName("ic_ctf_gpt-4_25_turns.json")).toMatchObject({ environment: "ctf", model: "gpt-4", policy: "try-again", turnLimit: 25 });
    // names as InterCode's published results folder has them
    expect(inferMetaFromFileName("results/bash/gpt-3.5/ic_bash_plan_solve_fs_1.json")).toEqual({
      environment: "bash",
      dataset: "nl2bash-fs1",
      model: "gpt-3.5",
      policy: "plan-solve",
    });
    expect(inferMetaFromFileName("results/bash/gpt-3.5/ic_bash_react_10_turns_fs_2.json")).toEqual({
      environment: "bash",
      dataset: "nl2bash-fs2",
      model: "gpt-3.5",
      policy: "react",
      turnLimit: 10,
    });
    // the 3 is Plan & Solve's refine turns, part of the policy's name (not a turn limit)
    expect(inferMetaFromFileName("gpt-3.5/ic_sql_plan_solve_refine_3_turns.json")).toEqual({
      environment: "sql",
      model: "gpt-3.5",
      policy: "plan-solve-refine-3",
    });
    // InterCode's ReAct runs named their logs without the ic_ prefix
    expect(inferMetaFromFileName("gpt-3.5/sql_react_10_turns.json")).toEqual({ environment: "sql", model: "gpt-3.5", policy: "react", turnLimit: 10 });
    expect(inferMetaFromFileName("sql/gpt-3.5/ic_sql_multiturn_gpt-3.5-1_turns.json")).toMatchObject({ model: "gpt-3.5", policy: "single-turn", turnLimit: 1 });
    expect(inferMetaFromFileName("ic_sql_multiturn_gpt-4_1_turns.json")).toMatchObject({ model: "gpt-4", policy: "single-turn", turnLimit: 1 });
    expect(inferMetaFromFileName("ic_sql_multiturn_text-bison-001_10_turns_handicap.json")).toMatchObject({
      model: "text-bison-001",
      policy: "try-again-handicap",
      turnLimit: 10,
    });
    expect(inferMetaFromFileName("results/ic_sql_plan_solve.json")).toEqual({ environment: "sql", policy: "plan-solve" });
  });
});

describe("import of InterCode's published logs", () => {
  beforeAll(() => useFreshDb("import"));
  afterAll(() => closeStore());

  it("imports the sample folder and reproduces the published figures", async () => {
    const report = await importPaths([sample]);
    expect(report.totals).toMatchObject({ files: 4, failedFiles: 0, rejected: 0, episodes: 27 + 4 + 117 + 15, added: 27 + 4 + 117 + 15 });
    // the sample holds none of the published logs' oddities but one reworded question: CTF task 0
    // ("You have access to the file", the task set's "You have 'read' access to the file")
    expect(report.totals).toMatchObject({ flagged: 1, flags: { "task-text-differs": 1 } });
    const { groups } = await computeStats({ groupBy: ["env", "dataset", "actor", "model", "policy"] });
    const bash = groups.find((g) => g.key.env === "bash")!;
    expect(bash.key).toEqual({ env: "bash", dataset: "nl2bash-fs4", actor: "model", model: "gpt-4", policy: "try-again" });
    expect(bash.episodes).toBe(27);
    expect(bash.solved).toBe(16);
    expect((bash.successRate * 100).toFixed(2)).toBe("59.26");
    expect(bash.meanTurns.toFixed(2)).toBe("4.85");
    expect(bash.successAtK).toHaveLength(10);
    expect(bash.successAtK[9]).toBeCloseTo(bash.successRate, 10);
    expect(bash.errorRate).not.toBeNull();
    const py = groups.find((g) => g.key.env === "python")!;
    expect(py.key).toMatchObject({ dataset: "mbpp", model: "gpt-3.5", policy: "try-again" });
    expect([py.solved, py.episodes]).toEqual([69, 117]);
    expect((py.successRate * 100).toFixed(2)).toBe("58.97");
    expect(py.successAtK).toHaveLength(7);
    const sql = groups.find((g) => g.key.env === "sql")!;
    expect(sql.key).toMatchObject({ actor: "human", model: null, dataset: "spider-dev" });
    expect(sql.episodes).toBe(15);
    // success@k rises monotonically to the success rate
    for (const g of groups) for (let k = 1; k < g.successAtK.length; k++) expect(g.successAtK[k]).toBeGreaterThanOrEqual(g.successAtK[k - 1]);
  });

  it("keeps per-turn fields: actions, observations, rewards, valid_action, and the summary", async () => {
    const page = await listEpisodes({ filters: { environment: "bash", taskId: "0" } });
    const ep = await getEpisodeById({ id: page.rows[0].id });
    const raw = JSON.parse(fs.readFileSync(path.join(sample, "bash/ic_bash_multiturn_gpt-4_10_turns_fs_4.json"), "utf8"))["0"];
    expect(ep!.turns.map((t) => t.action)).toEqual(raw.turn_history.actions);
    expect(ep!.turns.map((t) => t.observation)).toEqual(raw.turn_history.observations);
    expect(ep!.turns.map((t) => t.reward)).toEqual(raw.turn_history.rewards);
    expect(ep!.turns.map((t) => t.ok)).toEqual(raw.turn_history.valid_action);
    expect(ep!.reward).toBe(raw.summary.max_reward);
    expect(ep!.turnCount).toBe(raw.summary.turns_taken);
    expect(ep!.invalidCount).toBe(raw.turn_history.valid_action.filter((v: boolean) => !v).length);
    expect(JSON.parse(ep!.breakdown!)).toEqual(raw.info.reward);
    expect(ep!.sourceFile).toBe("ic_bash_multiturn_gpt-4_10_turns_fs_4.json");
  });

  it("indexes imported episodes for full-text search, and leaves live indexing on", async () => {
    const byObservation = await listEpisodes({ search: "linuxkit", filters: { environment: "bash" } });
    expect(byObservation.rows.map((r) => r.taskId)).toContain("0");
    const byQuery = await listEpisodes({ search: "minimum length sublist" });
    expect(byQuery.rows.map((r) => r.environment)).toContain("python");
    // The bulk path drops the two insert triggers for its transaction only: both are back.
    const triggers = getRawDb()
      .prepare(`SELECT "name" FROM "sqlite_master" WHERE "type" = 'trigger' AND "name" IN ('Episode_text_ai', 'Turn_text_ai') ORDER BY "name"`)
      .pluck()
      .all();
    expect(triggers).toEqual(["Episode_text_ai", "Turn_text_ai"]);
    const live = await createEpisode({ environment: "sql", dataset: "spider-dev", taskId: "1", query: "quokka census", playerKind: "human", turnLimit: 10 });
    await appendTurn({ episodeId: live.id, turn: { index: 0, actor: "human", action: "SELECT wombat FROM zoo", observation: "", ok: true } });
    expect((await listEpisodes({ search: "quokka" })).rows.map((r) => r.id)).toEqual([live.id]);
    expect((await listEpisodes({ search: "wombat" })).rows.map((r) => r.id)).toEqual([live.id]);
    await deleteEpisodeById({ id: live.id });
    expect((await listEpisodes({ search: "wombat" })).total).toBe(0);
  });

  it("is idempotent: importing the same files again stores nothing new", async () => {
    const again = await importPaths([sample]);
    expect(again.totals).toMatchObject({ added: 0, skipped: 163, rejected: 0 });
    expect((await listEpisodes({})).total).toBe(163);
  });

  it("reports a damaged file, a configuration file and bad records with file, record and reason, and goes on", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-bad-"));
    const good = JSON.parse(fs.readFileSync(path.join(sample, "python/ic_python_multiturn_gpt-3.5_7_turns.json"), "utf8"));
    const keys = Object.keys(good).slice(0, 3);
    const mixed: Record<string, unknown> = {
      [keys[0]]: good[keys[0]],
      [keys[1]]: {
        ...good[keys[1]],
        turn_history: { ...good[keys[1]].turn_history, observations: [...good[keys[1]].turn_history.observations, "an observation with no action"] },
      },
      [keys[2]]: { ...good[keys[2]], environment: "ic_cobol" },
      x: { summary: "nope" },
    };
    fs.writeFileSync(path.join(dir, "ic_python_multiturn_gpt-4_5_turns.json"), JSON.stringify(mixed));
    fs.writeFileSync(path.join(dir, "ic_sql_multiturn_gpt-4_10_turns.json"), JSON.stringify(good).slice(0, 5000));
    fs.writeFileSync(path.join(dir, "config.json"), JSON.stringify({ model: "gpt-4", max_turns: 10, env: "ic_sql", temperature: 0 }));
    const report = await importPaths([dir]);
    const byName = Object.fromEntries(report.files.map((f) => [path.basename(f.file), f]));
    expect(byName["config.json"].error).toMatch(/holds no episodes.*run configuration/);
    expect(byName["ic_sql_multiturn_gpt-4_10_turns.json"].error).toMatch(/damaged JSON/);
    const mixedReport = byName["ic_python_multiturn_gpt-4_5_turns.json"];
    expect(mixedReport.added).toBe(1);
    expect(mixedReport.rejected.map((r) => [r.record, r.index])).toEqual([
      [keys[1], 1],
      [keys[2], 2],
      ["x", 3],
    ]);
    expect(mixedReport.rejected[0].reason).toMatch(/observations/);
    expect(mixedReport.rejected[1].reason).toMatch(/unknown environment "ic_cobol"/);
    expect(report.totals).toMatchObject({ files: 3, failedFiles: 2, added: 1, rejected: 3 });
  });

  it("a full disk is a StorageError and leaves nothing of the file behind", async () => {
    const db = getRawDb();
    const before = (await listEpisodes({})).total;
    const files = () => db.prepare(`SELECT COUNT(*) AS n FROM "ImportedFile"`).get();
    const filesBefore = files();
    const pages = db.pragma("page_count", { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    const err = await importPaths([path.join(sample, "python")], { model: "other-model" }).catch((e) => e);
    db.pragma("max_page_count = 1073741823");
    expect(err).toBeInstanceOf(StorageError);
    expect(err.message).toMatch(/disk .* is full/);
    expect((await listEpisodes({})).total).toBe(before);
    expect(files()).toEqual(filesBefore);
    expect((db.prepare(`SELECT "deferred" FROM "_FtsControl"`).get() as { deferred: number }).deferred).toBe(0);
    // and the same import goes through once there is room
    expect((await importPaths([path.join(sample, "python")], { model: "other-model" })).totals.added).toBe(117);
  });

  it("flags override what the file name says", () => {
    const text = fs.readFileSync(path.join(sample, "ctf/ic_ctf_gpt-4_25_turns.json"), "utf8");
    const parsed = parseLogText("ic_ctf_gpt-4_25_turns.json", text, { model: "claude", policy: "react", turnLimit: 15 });
    expect(parsed.episodes[0]).toMatchObject({ model: "claude", policy: "react", turnLimit: 15, environment: "ctf", dataset: "ctf" });
  });
});

describe("environment logs", () => {
  it("read whether a SQL action executed from the environment's error message", async () => {
    const text = fs.readFileSync(path.join(sample, "sql/ic_sql_multiturn_human_10_turns.json"), "utf8");
    const parsed = parseLogText("ic_sql_multiturn_human_10_turns.json", text);
    const turns = parsed.episodes.flatMap((e) => e.turns);
    const failed = turns.filter((t) => t.observation.startsWith("Error executing query"));
    expect(failed.length).toBeGreaterThan(0);
    expect(turns.filter((t) => t.ok === false)).toEqual(failed);
    expect(parsed.episodes.every((e) => e.playerKind === "human" && e.turns.every((t) => t.actor === "human"))).toBe(true);
  });
});

describe("an imported episode is finished (finding 10)", () => {
  it("a record saying running or interrupted is stored abandoned and flagged unfinished, so it cannot seal its task", () => {
    const line = (id: string, status: string, mode: string) =>
      JSON.stringify({
        format: "icstudio.episode",
        version: 1,
        id,
        environment: "bash",
        dataset: "nl2bash-fs1",
        taskId: "3",
        query: "q",
        playerKind: "human",
        annotator: "a",
        turnLimit: 10,
        mode,
        status,
        reward: null,
        success: false,
        startedAt: "2026-01-01T00:00:00Z",
        turns: [],
      });
    const text = [
      line("0190a000-0000-7000-8000-00000000b001", "running", "baseline"),
      line("0190a000-0000-7000-8000-00000000b002", "interrupted", "baseline"),
      line("0190a000-0000-7000-8000-00000000b003", "submitted", "baseline"),
    ].join("\n");
    const parsed = parseLogText("sealing.jsonl", text);
    expect(parsed.rejected).toEqual([]);
    expect(parsed.episodes.map((e) => [e.status, e.flags ?? []])).toEqual([
      ["abandoned", ["unfinished"]],
      ["abandoned", ["unfinished"]],
      ["submitted", []],
    ]);
  });
});
