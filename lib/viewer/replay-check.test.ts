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
