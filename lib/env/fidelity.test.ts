import { describe, expect, it } from "vitest";
import type { Task } from "@/lib/datasets/types";
import { ENV_FIDELITY, definedFunctions, fidelityOf, fidelityOfEnv, unwrapRowList } from "./fidelity";
import type { StepResult } from "./types";

const base = { dataset: "t", id: "0", index: 0, query: "q" };
const bash: Task = { ...base, env: "bash", fs: "fs1", gold: ["ls", "pwd"] };
const sql: Task = { ...base, env: "sql", db: "d", gold: "SELECT 1", tables: {} };
const python: Task = { ...base, env: "python", gold: "def f(x):\n  return x", tests: ["assert f(1) == 1"], setup: "", functionName: "f" };
const ctf: Task = { ...base, env: "ctf", gold: "picoCTF{x}", tags: [] };
const ctfSolved: Task = { ...ctf, solution: "cat flag.txt" };
const step = (observation: string): StepResult => ({ observation, ok: true, done: false });

describe("environment fidelity table", () => {
  it("reads the functions Python code defines, in order, and tests the task's own name when defined", () => {
    expect(definedFunctions("def a(x):\n  pass\nx = 1\ndef b():\n  pass\n  def inner(): pass")).toEqual(["a", "b"]);
    expect(fidelityOf(python).testedFunction(python, ["g", "f", "h"])).toBe("f");
    expect(fidelityOf(python).testedFunction(python, ["g", "h"])).toBe("h");
    for (const t of [bash, sql, ctf]) expect(fidelityOf(t).definedFunctions("def a(): pass")).toEqual([]);
  });

  it("says what submit is called with", () => {
    expect(fidelityOf(python).submitArg(python, undefined, undefined)).toBe("f");
    expect(fidelityOf(python).submitArg(python, undefined, "g")).toBe("g");
    expect(fidelityOf(python).submitArg(python, "h", "g")).toBe("h");
    expect(fidelityOf(ctf).submitArg(ctf, undefined, undefined)).toBe("");
    expect(fidelityOf(bash).submitArg(bash, "x", undefined)).toBeUndefined();
    expect(fidelityOf(sql).submitArg(sql, "x", undefined)).toBeUndefined();
  });

  it("reads the profile rows of its environment only", () => {
    expect(fidelityOf(ctf).flagVerdict("intercode")).toBe(true);
    expect(fidelityOf(ctf).flagVerdict("studio")).toBe(false);
    expect(fidelityOf(ctf).wrongFlagContinues("intercode")).toBe(true);
    expect(fidelityOf(ctf).cmdWrapper("intercode")).toBe(true);
    expect(fidelityOf(bash).cmdWrapper("intercode")).toBe(false);
    expect(fidelityOf(python).feedbackWording("intercode", "try-again")).toBe("did-not-pass");
    expect(fidelityOf(python).feedbackWording("intercode", "try-again", ["Failed 1/3 Test Cases. Please try again."])).toBe("failed-count");
    expect(fidelityOf(python).feedbackWording("intercode", "react")).toBeNull();
    expect(fidelityOf(python).feedbackWording("studio", "try-again")).toBeNull();
    expect(fidelityOf(sql).feedbackWording("intercode", "try-again")).toBeNull();
    expect(fidelityOf(python).replayScoresLastTurn("intercode")).toBe(false);
    expect(fidelityOf(python).replayScoresLastTurn("studio")).toBe(true);
    expect(fidelityOf(python).scoresTurnWithoutFunction("intercode")).toBe(true);
    expect(fidelityOf(python).scoresTurnWithoutFunction("studio")).toBe(false);
    expect(fidelityOf(bash).sharesSandboxAcrossEpisodes("intercode")).toBe(true);
    expect(fidelityOf(bash).sharesSandboxAcrossEpisodes("studio")).toBe(false);
    expect(fidelityOf(sql).sharesSandboxAcrossEpisodes("intercode")).toBe(false);
    expect(Object.entries(ENV_FIDELITY).map(([env, r]) => [env, r.turnScoring])).toEqual([
      ["bash", "state"],
      ["sql", "state"],
      ["python", "defined-function"],
      ["ctf", "none"],
    ]);
  });

  it("compares SQL's row list in the environment log's form, and gives bash's gold to the categories", () => {
    expect(unwrapRowList("[(1, 'a'), (2, 'b')]")).toBe("(1, 'a')(2, 'b')");
    expect(unwrapRowList("[]")).toBe("");
    expect(unwrapRowList("plain")).toBe("plain");
    expect(fidelityOf(sql).comparable("[(1,)]")).toBe("(1,)");
    expect(fidelityOf(bash).comparable("[(1,)]")).toBe("[(1,)]");
    expect(fidelityOf(bash).goldCommand(bash)).toBe("ls;pwd");
    expect([fidelityOfEnv("sql").resultSets, fidelityOfEnv("bash").resultSets, fidelityOfEnv("other").resultSets]).toEqual([true, false, false]);
    expect(fidelityOf(sql).goldCommand(sql)).toBe("");
  });

  it("plays gold as an agent would", () => {
    const b = fidelityOf(bash).goldPlay(bash);
    expect([b.action, b.submitArg(undefined)]).toEqual(["ls;pwd", undefined]);
    const p = fidelityOf(python).goldPlay(python);
    expect([p.action, p.failure, p.submitArg(undefined)]).toEqual([python.gold, "gold code failed to run", "f"]);
    const c = fidelityOf(ctf).goldPlay(ctf);
    expect([c.action, c.submitArg(undefined)]).toEqual([undefined, "picoCTF{x}"]);
    const s = fidelityOf(ctfSolved).goldPlay(ctfSolved);
    expect([s.action, s.submitArg(step("picoCTF{x}\n"))]).toEqual(["cat flag.txt", "picoCTF{x}"]);
    expect(fidelityOf(ctf).goldRevealArg(ctf)).toBe("picoCTF{x}");
    expect(fidelityOf(sql).goldRevealArg(sql)).toBeUndefined();
  });
});
