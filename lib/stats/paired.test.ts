import { describe, expect, it } from "vitest";
import { runPython } from "@/lib/reward/testing/python-oracle";
import { mulberry32 } from "@/lib/seeded-random";
import { bootstrapDiff, comparePaired, mcnemarExact, summarisePaired, type PairedOutcome } from "./paired";

/** Tasks with the given counts of (both, A only, B only, neither), interleaved so order does not line up with outcome. */
function tasks(both: number, onlyA: number, onlyB: number, neither: number, seed = 7): PairedOutcome[] {
  const out: PairedOutcome[] = [
    ...Array.from({ length: both }, () => ({ a: true, b: true })),
    ...Array.from({ length: onlyA }, () => ({ a: true, b: false })),
    ...Array.from({ length: onlyB }, () => ({ a: false, b: true })),
    ...Array.from({ length: neither }, () => ({ a: false, b: false })),
  ];
  const rand = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("mcnemarExact", () => {
  it("equals scipy's binomtest(onlyA, onlyA + onlyB, 0.5) two-sided p on small, uneven, tied and large splits", () => {
    const rand = mulberry32(28);
    const cases: Array<[number, number]> = [
      [0, 1],
      [1, 0],
      [0, 5],
      [3, 3],
      [2, 9],
      [9, 2],
      [12, 5],
      [40, 25],
      [0, 60],
      [1, 1],
      [300, 250],
      [1500, 1410],
    ];
    for (let i = 0; i < 40; i++) cases.push([Math.floor(rand() * 80), Math.floor(rand() * 80) + 1]);
    const expected = runPython<number[]>(
      "from scipy.stats import binomtest\nresult = [binomtest(a, a + b, 0.5, alternative='two-sided').pvalue for a, b in data]",
      cases,
    );
    cases.forEach(([a, b], i) => {
      const p = mcnemarExact(a, b);
      expect(Math.abs(p - expected[i]!), `onlyA=${a} onlyB=${b}: ${p} vs scipy ${expected[i]}`).toBeLessThanOrEqual(1e-12 + 1e-10 * expected[i]!);
    });
  });

  it("is 1 with no discordant tasks and refuses a count that is not one", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(() => mcnemarExact(-1, 2)).toThrow(/onlyA/);
    expect(() => mcnemarExact(1, 2.5)).toThrow(/onlyB/);
  });
});

describe("bootstrapDiff", () => {
  // scipy's percentile bootstrap of mean(a) − mean(b), paired or not, with numpy's generator: another
  // generator than ours, so the ends agree to within the Monte Carlo error (one task's step, 1/n).
  // One python run for every case (starting scipy is the slow part).
  const SPLITS = [
    [30, 8, 2, 20],
    [5, 1, 6, 8],
    [100, 30, 12, 58],
    [0, 3, 0, 1],
  ] as const;
  const scipyIntervals = (cases: Array<{ pairs: PairedOutcome[]; paired: boolean }>) =>
    runPython<Array<[number, number]>>(
      [
        "import numpy as np",
        "from scipy.stats import bootstrap",
        "result = []",
        "for c in data:",
        "    a = np.array([1.0 if p['a'] else 0.0 for p in c['pairs']]); b = np.array([1.0 if p['b'] else 0.0 for p in c['pairs']])",
        "    r = bootstrap((a, b), lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis), paired=c['paired'], vectorized=True,",
        "                  method='percentile', confidence_level=0.95, n_resamples=20000, random_state=np.random.default_rng(5))",
        "    result.append([float(r.confidence_interval.low), float(r.confidence_interval.high)])",
      ].join("\n"),
      cases,
    );

  it("agrees with scipy.stats.bootstrap(paired=True, method='percentile') to within one task on several splits, and is narrower than the unpaired one", () => {
    const cases = SPLITS.map(([both, onlyA, onlyB, neither]) => tasks(both, onlyA, onlyB, neither));
    const expected = scipyIntervals([...cases.map((pairs) => ({ pairs, paired: true })), { pairs: cases[0]!, paired: false }]);
    cases.forEach((pairs, i) => {
      const [both, onlyA, onlyB, neither] = SPLITS[i]!;
      const n = pairs.length;
      const ci = bootstrapDiff(pairs, { resamples: 20_000, seed: 3 })!;
      const [low, high] = expected[i]!;
      expect(ci.diff).toBeCloseTo((onlyA - onlyB) / n, 12);
      expect(Math.abs(ci.low - low), `low ${ci.low} vs scipy ${low} (${both},${onlyA},${onlyB},${neither})`).toBeLessThanOrEqual(1 / n + 1e-9);
      expect(Math.abs(ci.high - high), `high ${ci.high} vs scipy ${high} (${both},${onlyA},${onlyB},${neither})`).toBeLessThanOrEqual(1 / n + 1e-9);
    });
    // The sides agree on most tasks of the first split: resampling them apart would be much wider.
    const ours = bootstrapDiff(cases[0]!)!;
    const [low, high] = expected[SPLITS.length]!;
    expect(ours.high - ours.low).toBeLessThan(0.8 * (high - low));
  });

  it("gives the same interval for the same seed and null with no tasks", () => {
    const pairs = tasks(10, 4, 1, 5);
    expect(bootstrapDiff(pairs, { seed: 9 })).toEqual(bootstrapDiff(pairs, { seed: 9 }));
    expect(bootstrapDiff([])).toBeNull();
    expect(() => bootstrapDiff(pairs, { level: 1 })).toThrow(/level/);
  });
});

describe("comparePaired", () => {
  it("counts the four groups overall and per group, each with its own test", () => {
    const pairs: PairedOutcome[] = [...tasks(3, 2, 0, 1).map((p) => ({ ...p, group: "easy" })), ...tasks(1, 0, 3, 2).map((p) => ({ ...p, group: "hard" }))];
    const { overall, groups } = comparePaired(pairs);
    expect({ ...overall, diffCI: undefined }).toEqual({ tasks: 12, both: 4, onlyA: 2, onlyB: 3, neither: 3, mcnemarP: mcnemarExact(2, 3), diffCI: undefined });
    expect(groups.map((g) => [g.group, g.both, g.onlyA, g.onlyB, g.neither])).toEqual([
      ["easy", 3, 2, 0, 1],
      ["hard", 1, 0, 3, 2],
    ]);
    expect(groups[1]!.mcnemarP).toBe(0.25);
    const { group: _easy, ...easy } = groups[0]!;
    expect(easy).toEqual(summarisePaired(pairs.filter((p) => p.group === "easy")));
    // No group at all: no per-group rows.
    expect(comparePaired(tasks(1, 1, 1, 1)).groups).toEqual([]);
  });
});
