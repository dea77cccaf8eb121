import { describe, expect, it } from "vitest";
import { taskOrderFor } from "./assignment";

const TASKS = ["a", "b", "c"];

describe("taskOrderFor", () => {
  it("fixed keeps the study's order for everyone", () => {
    for (let p = 0; p < 4; p++) expect(taskOrderFor(TASKS, "fixed", p, "s")).toEqual(TASKS);
  });

  it("balanced puts every task at every position equally often (a Latin square)", () => {
    const counts = new Map<string, number>();
    for (let p = 0; p < 6; p++) {
      const order = taskOrderFor(TASKS, "balanced", p, "s");
      expect([...order].sort()).toEqual(TASKS);
      for (const [pos, t] of order.entries()) counts.set(`${t}@${pos}`, (counts.get(`${t}@${pos}`) ?? 0) + 1);
    }
    expect(counts.size).toBe(9);
    for (const c of counts.values()) expect(c).toBe(2);
  });

  it("random is a permutation, the same for the same participant, and varies between participants", () => {
    const orders = Array.from({ length: 12 }, (_, p) => taskOrderFor(TASKS, "random", p, "study-1"));
    for (const o of orders) expect([...o].sort()).toEqual(TASKS);
    expect(taskOrderFor(TASKS, "random", 3, "study-1")).toEqual(orders[3]);
    expect(new Set(orders.map((o) => o.join())).size).toBeGreaterThan(1);
  });
});
