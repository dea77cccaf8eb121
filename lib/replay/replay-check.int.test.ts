import { describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { createEnvironment } from "@/lib/env";
import { checkEpisodeReplay, normalizeObservation, summarizeChecks, unwrapPythonResult } from "./replay-check";

describe("observation normalising", () => {
  it("unwraps InterCode's python result dict", () => {
    expect(unwrapPythonResult("{'output': '', 'error': ''}")).toBe("");
    expect(unwrapPythonResult("{'output': 'a\\nb\\'c\\n', 'error': ''}")).toBe("a\nb'c\n");
    expect(unwrapPythonResult(`{'output': '5\\n', 'error': "NameError: name 'x' is not defined"}`)).toBe("5\nNameError: name 'x' is not defined");
    expect(unwrapPythonResult("{'output': 'x'")).toBe("{'output': 'x'");
    expect(unwrapPythonResult("plain")).toBe("plain");
  });
  it("drops colours, trailing blanks and CRs", () => {
    expect(normalizeObservation("\x1b[31ma  \r\nb\n\n")).toBe("a\nb");
  });
});

describe("checkEpisodeReplay (python, real sandbox)", () => {
  it("marks the turns whose output or reward differ from the recording", async () => {
    const task = loadDataset("demo-python")[0];
    const gold = Array.isArray(task.gold) ? task.gold.join("\n") : task.gold;
    const env = await createEnvironment("python", { backend: "local" });
    const check = await checkEpisodeReplay({
      task,
      env,
      finalReward: 1,
      turns: [
        { index: 0, action: "print(6 * 7)", observation: "{'output': '42\\n', 'error': ''}", reward: null },
        { index: 1, action: "print('hello')", observation: "goodbye", reward: null },
        { index: 2, action: gold, observation: "", reward: 0.5 },
        { index: 3, action: "submit", observation: "", reward: 1 },
      ],
    });
    expect(check.error).toBeUndefined();
    expect(check.turns.map((t) => t.observationAgrees)).toEqual([true, false, true, expect.any(Boolean)]);
    expect(check.turns[1].replayedObservation.trim()).toBe("hello");
    expect(check.turns[2].rewardAgrees).toBe(false);
    expect(check.turns[2].replayedReward).toBe(1);
    expect(check.turns[3]).toMatchObject({ rewardAgrees: true, replayedReward: 1 });
    expect(check.finalRewardAgrees).toBe(true);
    const s = summarizeChecks([check]);
    expect(s).toMatchObject({ episodes: 1, turns: 4, rewardCompared: 2, rewardAgree: 0.5 });
  }, 120_000);
});

describe("checkEpisodeReplay with InterCode's loops (real sandboxes)", () => {
  it("runs ReAct's execute[...] as the code it wraps, and the forced final submit is not a turn", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const env = await createEnvironment("sql", { backend: "local", profile: "intercode" });
    const check = await checkEpisodeReplay({
      task,
      env,
      finalReward: 1,
      loop: { profile: "intercode", policy: "react", turnLimit: 2 },
      turns: [
        { index: 0, action: "execute[SELECT count(*) FROM stations]", observation: "[(8,)]", reward: null },
        {
          index: 1,
          action: "execute[SELECT name FROM stations WHERE station_id < 3 ORDER BY station_id]",
          observation: "[('Harbour Gate',), ('Old Mill Square',)]",
          reward: null,
        },
        { index: 2, action: "submit", observation: "", reward: null },
      ],
    });
    expect(check.error).toBeUndefined();
    expect(check.turns.map((t) => [t.observationAgrees, t.ranAction ?? null, t.forcedSubmit ?? false])).toEqual([
      [true, "SELECT count(*) FROM stations", false],
      [true, "SELECT name FROM stations WHERE station_id < 3 ORDER BY station_id", false],
      [expect.any(Boolean), null, true],
    ]);
    expect(check.finalRewardAgrees).toBe(false);
    // The episode has two turns (InterCode's turns_taken); its last submit only gives the final reward.
    expect(summarizeChecks([check])).toMatchObject({ turns: 2, observationAgree: 1 });
  }, 120_000);

  it("ReAct scores only at submit: the 0 its log holds on other turns is neither scored nor compared", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const gold = Array.isArray(task.gold) ? task.gold.join("\n") : task.gold;
    const env = await createEnvironment("sql", { backend: "local", profile: "intercode" });
    // As InterCode's ReAct logged it: gold run before the submit, its turn's reward 0 (never scored).
    const check = await checkEpisodeReplay({
      task,
      env,
      finalReward: 1,
      loop: { profile: "intercode", policy: "react", turnLimit: 5 },
      turns: [
        { index: 0, action: `execute[${gold}]`, observation: "", reward: 0 },
        { index: 1, action: "submit", observation: "", reward: 1 },
      ],
    });
    expect(check.error).toBeUndefined();
    expect(check.turns.map((t) => [t.rewardAgrees, t.replayedReward])).toEqual([
      [null, null],
      [true, 1],
    ]);
    expect(summarizeChecks([check])).toMatchObject({ rewardCompared: 1, rewardAgree: 1 });
  }, 120_000);

  it("a log whose observation names a table the task's database lacks: the log's environment differed, with the evidence", async () => {
    const task = loadDataset("demo-sql").find((t) => t.id === "bike-01")!;
    const env = await createEnvironment("sql", { backend: "local", profile: "intercode" });
    const check = await checkEpisodeReplay({
      task,
      env,
      finalReward: 0,
      loop: { profile: "intercode", policy: "react", turnLimit: 5 },
      turns: [
        { index: 0, action: "execute[SHOW TABLES]", observation: "[('poker_players',), ('stations',)]", reward: 0 },
        { index: 1, action: "execute[SELECT player_name FROM poker_players]", observation: "[('player1',), ('player2',)]", reward: 0 },
        {
          index: 2,
          action: "execute[DESCRIBE stations]",
          observation: "[('station_id', 'int', 'NO', 'PRI', None, ''), ('final_tables', 'int', 'YES', '', None, '')]",
          reward: 0,
        },
        // A table the database has, with other rows than the log's: the Studio's environment content.
        { index: 3, action: "execute[SELECT count(*) FROM stations]", observation: "[(99,)]", reward: 0 },
        { index: 4, action: "submit", observation: "", reward: 0 },
      ],
    });
    expect(check.error).toBeUndefined();
    expect(check.turns.slice(0, 4).map((t) => [t.category, t.evidence ?? null])).toEqual([
      ["the log's environment differed", expect.stringMatching(/^table poker_players: the log's SHOW TABLES listed it/)],
      [
        "the log's environment differed",
        expect.stringMatching(/^table poker_players: the log's query read it and got rows, the task's database \S+ has no such table$/),
      ],
      ["the log's environment differed", expect.stringMatching(/^column stations\.final_tables: the log's DESCRIBE listed it, .* has no such column$/)],
      ["environment content", null],
    ]);
  }, 120_000);

  it("replays Python Try Again under intercode with the logged feedback wording", async () => {
    const task = loadDataset("demo-python").find((t) => t.id === "reverse-words")!;
    const env = await createEnvironment("python", { backend: "local", profile: "intercode" });
    const check = await checkEpisodeReplay({
      task,
      env,
      finalReward: 1,
      loop: { profile: "intercode", policy: "try-again", turnLimit: 3 },
      turns: [
        { index: 0, action: "def rev(s):\n    return s[::-1]", observation: "Failed 3/3 Test Cases. Please try again.", reward: 0 },
        { index: 1, action: "print('checking')", observation: "{'output': 'checking\\nNone\\n', 'error': ''}", reward: 0 },
        { index: 2, action: "def rev(s):\n    return ' '.join(s.split()[::-1])", observation: "{'output': '', 'error': ''}", reward: 1 },
      ],
    });
    expect(check.error).toBeUndefined();
    expect(check.turns.map((t) => [t.observationAgrees, t.rewardAgrees])).toEqual([
      [true, true],
      [true, true],
      [true, true],
    ]);
    expect(check.finalRewardAgrees).toBe(true);
  }, 120_000);
});
