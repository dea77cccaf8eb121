import { describe, expect, it } from "vitest";
import { ENV_NAMES, type Task } from "@/lib/datasets/types";
import { fitToContext } from "../conversation";
import { parsePlan } from "./plan-solve";
import { cutObservation, feedbackText, taskText } from "./prompts";
import { getPolicy, listPolicies } from "./registry";

const sqlTask: Task = {
  env: "sql",
  dataset: "demo-sql",
  id: "t1",
  index: 0,
  query: "How many singers are there?",
  db: "concert",
  gold: "SELECT count(*) FROM singer",
  tables: { singer: ["singer_id", "name", "age"], concert: ["concert_id", "year"] },
};

describe("policies", () => {
  it("gives each policy a prompt for each environment", () => {
    for (const p of listPolicies()) {
      for (const env of ENV_NAMES) {
        const s = p.start({ task: { ...sqlTask, env } as Task, env, maxTurns: 7, handicap: false, refineTurns: 0 });
        expect(s.system.length).toBeGreaterThan(100);
        expect(s.opening).toContain("How many singers are there?");
        expect(s.maxTurns).toBe(p.name === "single-turn" ? 1 : 7);
      }
    }
    expect(() => getPolicy("reflexion")).toThrow(/known: single-turn, try-again, react, plan-solve/);
  });

  it("gives the SQL schema up front only with the handicap", () => {
    expect(taskText(sqlTask, false)).not.toContain("singer_id");
    expect(taskText(sqlTask, true)).toContain("- singer: singer_id, name, age");
  });

  it("shows the score under Try Again, and only pass/fail for python functions", () => {
    expect(feedbackText("sql", { actor: "model", action: "x", observation: "[(3,)]", ok: true, reward: 0.5 })).toMatch(/score would be 0\.50/);
    const py = feedbackText("python", { actor: "model", action: "def f(): pass", observation: "", ok: true, testsPassed: false });
    expect(py).toMatch(/do not all pass/);
    expect(py).not.toMatch(/score/);
    expect(feedbackText("bash", { actor: "human", action: "ls", observation: "a", ok: true })).toMatch(/A person took over and ran/);
  });

  it("walks Plan & Solve through its steps, then the refine phase, then stops", () => {
    const s = getPolicy("plan-solve").start({ task: sqlTask, env: "sql", maxTurns: 10, handicap: false, refineTurns: 1 });
    const { steps, message } = s.planning!.accept("Plan:\n1. Look at the tables.\n2) Count the singers.\n");
    expect(steps).toEqual(["Look at the tables.", "Count the singers."]);
    expect(message).toMatch(/^Step 1 of 2: Look at the tables\./);
    const fb = { actor: "model" as const, action: "x", observation: "o", ok: true };
    expect(s.scoresTurn(0)).toBe(false);
    const n1 = s.afterTurn(0, fb);
    expect(n1.kind === "continue" && n1.message).toMatch(/Step 2 of 2/);
    expect(s.scoresTurn(1)).toBe(true);
    const n2 = s.afterTurn(1, fb);
    expect(n2.kind === "continue" && n2.message).toMatch(/The plan is done/);
    expect(s.afterTurn(2, fb).kind).toBe("stop");
    expect(parsePlan("- a\n- b")).toEqual(["a", "b"]);
    expect(parsePlan("just do it")).toEqual(["just do it"]);
  });
});

describe("observation budget and context window", () => {
  it("cuts a long observation and says how much was left out", () => {
    const cut = cutObservation("x".repeat(2500), 2000);
    expect(cut.startsWith("x".repeat(2000))).toBe(true);
    expect(cut).toMatch(/\[\.\.\. 500 more characters not shown\]$/);
    expect(cutObservation("short", 2000)).toBe("short");
  });

  it("drops middle turns in pairs, keeping the task and the latest turns", () => {
    const msgs = [{ role: "user" as const, content: "TASK" }];
    for (let i = 0; i < 10; i++)
      msgs.push({ role: "assistant", content: `a${i} ${"y".repeat(400)}` } as never, { role: "user", content: `u${i} ${"z".repeat(400)}` } as never);
    const fitted = fitToContext("sys", msgs, 600);
    expect(fitted[0]!.content).toMatch(/^TASK\n\n\(\d+ earlier turns were left out/);
    expect(fitted.at(-1)!.content).toMatch(/^u9/);
    expect(fitted.length % 2).toBe(1);
    expect(fitted.map((m) => m.role)).toEqual(fitted.map((_, i) => (i % 2 === 0 ? "user" : "assistant")));
    expect(fitToContext("sys", msgs, 1_000_000)).toBe(msgs);
  });
});
