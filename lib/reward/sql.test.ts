import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import type { PyValue } from "./python-repr";
import { type SqlRow, sqlReward } from "./sql";
import { mulberry32 } from "@/lib/seeded-random";
import { pythonHas, runPython } from "./testing/python-oracle";

const intercodeDir = config().sharedIntercodeDir;

describe("sqlReward", () => {
  it("both empty is 1; an error or no result set is 0", () => {
    expect(sqlReward({ agentRows: [], goldRows: [] }).reward).toBe(1);
    expect(sqlReward({ agentRows: [], goldRows: null }).reward).toBe(1); // gold failed: counts as no rows
    const failed = sqlReward({ agentRows: null, agentError: "no such table: x", goldRows: [[1]] });
    expect(failed.reward).toBe(0);
    expect(failed.breakdown.error).toBe("no such table: x");
    expect(sqlReward({ agentRows: null, goldRows: [] }).reward).toBe(0);
    expect(sqlReward({ agentRows: [], goldRows: [[1]] }).reward).toBe(0);
  });

  it("same rows in the same order is 1; one shared row keeps the plain IoU", () => {
    expect(
      sqlReward({
        agentRows: [
          ["a", 1],
          ["b", 2],
        ],
        goldRows: [
          ["a", 1],
          ["b", 2],
        ],
      }),
    ).toMatchObject({ reward: 1, breakdown: { overlap: 1, order: 1 } });
    const r = sqlReward({ agentRows: [[1], [2], [3]], goldRows: [[1]] });
    expect(r.raw).toBe(1 / 3); // tau undefined for one shared row: unrounded, as InterCode logged it
    expect(r.reward).toBe(0.33);
    expect(r.breakdown.order).toBeNull();
  });

  it("scales by tau: a reversed order drives the reward to 0 (InterCode: negative)", () => {
    const rows: SqlRow[] = [["a"], ["b"], ["c"]];
    const r = sqlReward({ agentRows: [...rows].reverse(), goldRows: rows });
    expect(r.raw).toBe(-1);
    expect(r.reward).toBe(0);
    expect(r.breakdown.order).toBe(-1);
    const swapped = sqlReward({ agentRows: [["b"], ["a"], ["c"]], goldRows: rows });
    expect(swapped.reward).toBe(0.33); // tau = 1/√3/√3
  });

  it("counts duplicates as a multiset (min over max)", () => {
    const r = sqlReward({ agentRows: [["x"], ["x"], ["y"]], goldRows: [["x"], ["y"], ["y"], ["z"]] });
    // ∩ = {x:1, y:1} = 2; ∪ = {x:2, y:2, z:1} = 5; shared in order: agent x,y ; gold x,y → tau 1
    expect(r.breakdown.overlap).toBe(0.4);
    expect(r.reward).toBe(0.4);
  });

  it("compares rows by Python's text: 1 and 1.0 differ, None and 'None' differ", () => {
    expect(sqlReward({ agentRows: [[1]], goldRows: [[{ py: "float", value: 1 }]] }).reward).toBe(0);
    expect(sqlReward({ agentRows: [[null]], goldRows: [["None"]] }).reward).toBe(0);
    expect(sqlReward({ agentRows: [[{ py: "decimal", text: "2.50" }]], goldRows: [[{ py: "decimal", text: "2.50" }]] }).reward).toBe(1);
  });

  it("reproduces the rewards recorded in InterCode's human SQL log", () => {
    const file = path.join(intercodeDir, "results-sample/sql/ic_sql_multiturn_human_10_turns.json");
    const log = JSON.parse(readFileSync(file, "utf8")) as Record<string, { reward: number; info: { agent_obs: PyValue[][]; eval_obs: PyValue[][] } }>;
    const episodes = Object.values(log);
    expect(episodes.length).toBeGreaterThan(10);
    for (const e of episodes) {
      expect(sqlReward({ agentRows: e.info.agent_obs, goldRows: e.info.eval_obs }).raw).toBe(e.reward);
    }
  });

  it.runIf(pythonHas("scipy"))("equals InterCode's formula run in Python (Counter, str(tuple), scipy kendalltau)", () => {
    const random = mulberry32(3);
    const values: PyValue[] = [1, 2, 10, "a", "b", "it's", null, { py: "float", value: 1 }, { py: "float", value: 0.1 }, { py: "decimal", text: "1.50" }];
    const row = (): PyValue[] => Array.from({ length: 1 + Math.floor(random() * 2) }, () => values[Math.floor(random() * values.length)]);
    const cases = Array.from({ length: 300 }, () => {
      const gold = Array.from({ length: Math.floor(random() * 7) }, row);
      const agent =
        random() < 0.4
          ? [...gold].sort(() => random() - 0.5).slice(0, Math.floor(random() * (gold.length + 1)))
          : Array.from({ length: Math.floor(random() * 7) }, row);
      if (random() < 0.3) agent.push(row());
      return { agent, gold };
    });
    const want = runPython<number[]>(
      `
from collections import Counter
from decimal import Decimal
from scipy.stats import kendalltau
def py(v):
    if isinstance(v, dict) and v.get('py') == 'float': return float(v['value'])
    if isinstance(v, dict) and v.get('py') == 'decimal': return Decimal(v['text'])
    return v
def shared_in_order(lst, inter):
    inter = inter.copy(); out = []
    for x in lst:
        if x in inter:
            inter[x] -= 1
            if inter[x] == 0: del inter[x]
            out.append(x)
    return out
result = []
for c in data:
    a = [str(tuple(py(v) for v in r)) for r in c['agent']]
    g = [str(tuple(py(v) for v in r)) for r in c['gold']]
    ca, cg = Counter(a), Counter(g)
    inter = ca & cg
    union = ca | cg
    if len(union) == 0:
        result.append(1); continue
    r = sum(inter.values()) * 1. / sum(union.values())
    if len(inter) > 0:
        t = kendalltau(shared_in_order(a, inter), shared_in_order(g, inter), nan_policy='omit').statistic
        if not math.isnan(t): r = round(t * r, 2)
    result.append(r)
`,
      cases,
    );
    const got = cases.map((c) => sqlReward({ agentRows: c.agent, goldRows: c.gold }).raw);
    expect(got).toEqual(want);
    expect(new Set(got).size).toBeGreaterThan(5);
  });
});
