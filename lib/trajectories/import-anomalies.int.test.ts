import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { getEpisodeById, listEpisodes, listViewerEpisodes } from "@/lib/db/episodes";
import { getRawDb } from "@/lib/db/sqlite";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { filtersFromFlags } from "./cli-filters";
import { exportEpisodes } from "./export";
import { importLogText, type FileReport } from "./import";
import { importPaths } from "./import-paths";
import { computeStats } from "@/lib/stats/measures";

// Hand-written logs in InterCode's three formats, each holding one of the oddities of its
// published logs (see fixtures/logs and ../shared/intercode/README.md).
const logs = path.join(__dirname, "fixtures/logs");
const file = (name: string) => path.join(logs, name);
// The fixtures' questions are their own words, not the task sets': every episode is also flagged
// task-text-differs (lib/trajectories/task-links.ts). These tests look at the log's other oddities.
const REWORDED = "task-text-differs";
const asLogged = (flags: string) =>
  flags
    .split(" ")
    .filter((f) => f !== REWORDED)
    .join(" ");
const asLoggedList = (flags: string[]) => flags.filter((f) => f !== REWORDED);

async function episodeOf(filters: EpisodeFilters) {
  const page = await listEpisodes({ filters });
  expect(page.total).toBe(1);
  return (await getEpisodeById({ id: page.rows[0].id }))!;
}

describe("import of InterCode's logs as logged, oddities flagged", () => {
  useTempStore("import-anomalies");
  let byName: Record<string, FileReport> = {};

  it("imports every record of the three formats and refuses only the truncated file, naming it", async () => {
    const report = await importPaths([logs]);
    byName = Object.fromEntries(report.files.map((f) => [path.relative(logs, f.file), f]));
    expect(report.totals).toMatchObject({ files: 6, failedFiles: 1, episodes: 10, added: 10, rejected: 0, flagged: 10 });
    expect(report.totals.flags).toEqual({
      blocked: 1,
      "missing-observation": 1,
      "negative-reward": 1,
      "execute-wrapped": 2,
      "forced-submit": 1,
      "no-actions": 1,
      [REWORDED]: 10,
    });
    const truncated = byName["ic_python_multiturn_gpt-4_5_turns.json"];
    expect(truncated.file).toBe(file("ic_python_multiturn_gpt-4_5_turns.json"));
    expect(truncated.error).toMatch(/damaged JSON/);
    expect(byName["gpt-3.5/ic_sql_plan_solve_refine_2_turns.json"]).toMatchObject({
      format: "run",
      episodes: 3,
      rejected: [],
      flags: { "no-actions": 1, [REWORDED]: 3 },
    });
    expect(byName["ic_bash_plan_solve.json"]).toMatchObject({ format: "run", episodes: 1 });
    expect(byName["ic_sql_multiturn_human_5_turns.json"]).toMatchObject({ format: "envlog", flags: { "negative-reward": 1, [REWORDED]: 2 } });
    expect(byName["ic_bash_multiturn_gpt-4_3_turns_fs_2.json"]).toMatchObject({ format: "results", flagged: 2 });
  });

  it("results format: a blocked last action is stored with its missing observation, and the turns the log counted", async () => {
    const ep = await episodeOf({ environment: "bash", policy: "try-again", taskId: "1" });
    expect(asLogged(ep.flags).split(" ").sort()).toEqual(["blocked", "missing-observation"]);
    expect(ep.turns.map((t) => [t.action, t.observation, t.ok, t.reward])).toEqual([
      ["du -a /var/tmp/orchard | sort -n", "4\t/var/tmp/orchard/pears.log\n8\t/var/tmp/orchard/apples.log\n12\t/var/tmp/orchard\n", true, 0.2],
      ["blocked", "", null, 0],
    ]);
    expect([ep.reward, ep.success, ep.turnsTaken, ep.turnLimit, ep.dataset, ep.model]).toEqual([0.2, false, 2, 3, "nl2bash-fs2", "gpt-4"]);
    const clean = await episodeOf({ environment: "bash", policy: "try-again", taskId: "0" });
    expect([asLogged(clean.flags), clean.turnsTaken, clean.solvedAtTurn]).toEqual(["", 2, 2]);
  });

  it("environment-log format: a reward below 0 is kept as logged and flagged", async () => {
    const ep = await episodeOf({ environment: "sql", playerKind: "human", taskId: "12" });
    expect([ep.reward, ep.success, asLogged(ep.flags), ep.solvedAtTurn]).toEqual([-0.4, false, "negative-reward", null]);
  });

  it("ReAct: execute[...] actions and thoughts as logged; the forced final submit is stored but not counted as a turn", async () => {
    const ep = await episodeOf({ environment: "sql", policy: "react", taskId: "1" });
    expect(ep.model).toBe("gpt-3.5");
    expect(asLogged(ep.flags).split(" ").sort()).toEqual(["execute-wrapped", "forced-submit"]);
    expect(ep.turns.map((t) => t.action)).toEqual([
      "execute[SELECT * FROM tenure LIMIT 3]",
      "execute[SELECT keeper FROM tenure GROUP BY keeper HAVING count(*) > 2]",
      "execute[SELECT keeper_id FROM tenure GROUP BY keeper_id HAVING count(*) > 2]",
      "submit",
    ]);
    expect(ep.turns.map((t) => t.thought)).toEqual([
      "Keepers and lighthouses are joined by a tenure table.",
      "I need to group by keeper.",
      "Maybe the column is called keeper_id.",
      "EXCEEDED MAX TURNS: submit",
    ]);
    expect([ep.turnCount, ep.turnsTaken]).toEqual([4, 3]);
    const submitted = await episodeOf({ environment: "sql", policy: "react", taskId: "0" });
    expect([asLogged(submitted.flags), submitted.turnCount, submitted.turnsTaken, submitted.solvedAtTurn]).toEqual(["execute-wrapped", 2, 2, 2]);
    // InterCode's mean turns: (2 + 3) / 2, not the 3 stored turns on average.
    const [react] = (await computeStats({ filters: { policy: "react" }, groupBy: ["env", "model", "policy"] })).groups;
    expect(react.meanTurns).toBe(2.5);
  });

  it("run format ({meta, logs}): Plan & Solve named from meta and the file name, plan steps kept, an empty plan kept", async () => {
    const page = await listEpisodes({ filters: { environment: "sql", policy: "plan-solve-refine-2" }, sort: { key: "taskId", dir: "asc" } });
    expect(page.rows.map((r) => [r.taskId, r.model, r.dataset, r.success, r.turnCount, asLoggedList(r.flags)])).toEqual([
      ["3", "gpt-3.5", "spider-dev", true, 2, []],
      ["4", "gpt-3.5", "spider-dev", false, 2, []],
      ["5", "gpt-3.5", "spider-dev", false, 0, ["no-actions"]],
    ]);
    const ep = (await getEpisodeById({ id: page.rows[0].id }))!;
    expect(ep.turns.map((t) => t.thought)).toEqual(["Find the table that holds windmills.", "Count the windmills marked as working."]);
    const refined = (await getEpisodeById({ id: page.rows[1].id }))!;
    expect(refined.turns.map((t) => t.thought)).toEqual(["List the millers.", null]);
    const bash = await episodeOf({ environment: "bash", policy: "plan-solve" });
    expect([bash.dataset, bash.success, bash.model]).toEqual(["nl2bash-fs1", true, null]);
  });

  it("flags filter the list, the viewer and the statistics (icstudio --flag)", async () => {
    expect((await listEpisodes({ filters: filtersFromFlags({ flag: "negative-reward" }) })).rows.map((r) => r.taskId)).toEqual(["12"]);
    expect((await listViewerEpisodes({ filters: { flag: "blocked" } })).rows.map((r) => [r.taskId, asLoggedList(r.flags).sort()])).toEqual([
      ["1", ["blocked", "missing-observation"]],
    ]);
    expect(
      (await computeStats({ filters: filtersFromFlags({ flag: "execute-wrapped" }), groupBy: ["policy"] })).groups.map((g) => [g.key.policy, g.episodes]),
    ).toEqual([["react", 2]]);
    expect(() => filtersFromFlags({ flag: "odd" })).toThrow(/unknown flag "odd"; one of negative-reward/);
  });

  it("the paper's measures over the set: success is reward 1.0, turns as the logs counted them", async () => {
    // The paper's means are kept to 12 significant digits (lib/stats/measures.ts), so 4/3 reads 1.33333333333.
    const rows = (await computeStats({ groupBy: ["env", "model", "policy"] })).groups.map((g) => [
      g.key.env,
      g.key.model,
      g.key.policy,
      g.episodes,
      g.solved,
      g.meanTurns,
      Number(g.meanReward.toFixed(6)),
    ]);
    expect(rows).toEqual([
      ["bash", null, "plan-solve", 1, 1, 1, 1],
      ["bash", "gpt-4", "try-again", 2, 1, 2, 0.6],
      ["sql", null, null, 2, 1, 1.5, 0.3],
      ["sql", "gpt-3.5", "plan-solve-refine-2", 3, 1, 1.33333333333, 0.333333],
      ["sql", "gpt-3.5", "react", 2, 1, 2.5, 0.75],
    ]);
  });

  it("JSONL keeps what the import stored: the raw reward, the flags and the log's turn count", async () => {
    let text = "";
    const { episodes } = await exportEpisodes({ filters: { flag: "negative-reward" }, format: "jsonl", write: (c) => void (text += c) });
    expect(episodes).toBe(1);
    expect(JSON.parse(text)).toMatchObject({ reward: -0.4, flags: ["negative-reward", REWORDED] });
    let react = "";
    await exportEpisodes({ filters: { flag: "forced-submit" }, format: "jsonl", write: (c) => void (react += c) });
    const line = JSON.parse(react);
    expect([line.turnsTaken, line.turns.length]).toEqual([3, 4]);
    // Into a fresh copy under new ids: it reads back the same.
    const again = await importLogText(
      "moved.jsonl",
      [text, react]
        .join("")
        .replaceAll(/"id":"[^"]+"/g, (m) => m.replace('"id":"', '"id":"copy-'))
        .replaceAll(/"sourceKey":"[^"]+"/g, (m) => m.replace('"sourceKey":"', '"sourceKey":"copy-')),
    );
    expect(again).toMatchObject({ added: 2, rejected: [], flags: { "negative-reward": 1, "forced-submit": 1, "execute-wrapped": 1 } });
    const copy = await getEpisodeById({ id: `copy-${line.id}` });
    expect([copy!.turnsTaken, asLogged(copy!.flags)]).toEqual([3, "execute-wrapped forced-submit"]);
  });
});

describe.each(storeEngines())("import read in a worker thread (%s)", (engine) => {
  useTempStore("import-worker", engine);

  it("gives the same report and rows as reading on the writer's thread; a second import adds nothing", async () => {
    const report = await importPaths([logs], { worker: true });
    expect(report.totals).toMatchObject({ files: 6, failedFiles: 1, episodes: 10, added: 10, rejected: 0, flagged: 10 });
    expect(report.totals.flags).toEqual({
      blocked: 1,
      "missing-observation": 1,
      "negative-reward": 1,
      "execute-wrapped": 2,
      "forced-submit": 1,
      "no-actions": 1,
      [REWORDED]: 10,
    });
    expect(report.files.find((f) => f.error)?.file).toBe(file("ic_python_multiturn_gpt-4_5_turns.json"));
    const ep = await episodeOf({ environment: "sql", policy: "react", taskId: "1" });
    expect([asLogged(ep.flags), ep.turnCount, ep.turnsTaken, ep.turns[0].action]).toEqual([
      "execute-wrapped forced-submit",
      4,
      3,
      "execute[SELECT * FROM tenure LIMIT 3]",
    ]);
    // Search finds the episode by a word of an observation after the import.
    expect((await listEpisodes({ filters: { search: "orchard" } })).rows.map((r) => [r.environment, r.taskId]).sort()).toEqual([
      ["bash", "0"],
      ["bash", "1"],
    ]);
    const again = await importPaths([logs], { worker: true });
    expect(again.totals).toMatchObject({ added: 0, skipped: 10, failedFiles: 1 });
    // The import skips SQLite's per-row foreign key checks inside its transactions only.
    if (engine === "sqlite") expect(getRawDb().pragma("foreign_keys", { simple: true })).toBe(1);
  });
});
