import { describe, expect, it } from "vitest";
import { compareNumpyStrings, kendallTau } from "./kendall";
import { mulberry32 } from "@/lib/seeded-random";
import { pythonHas, runPython } from "./testing/python-oracle";

describe("kendallTau", () => {
  it("is 1 for the same order, -1 for the reverse, null when undefined", () => {
    expect(kendallTau(["a", "b", "c"], ["a", "b", "c"])).toBe(1);
    expect(kendallTau(["a", "b", "c"], ["c", "b", "a"])).toBe(-1);
    expect(kendallTau([], [])).toBeNull();
    expect(kendallTau(["a"], ["a"])).toBeNull();
    expect(kendallTau(["a", "a"], ["a", "b"])).toBeNull(); // every x tied
    expect(kendallTau(["a", "b"], ["z", "z"])).toBeNull(); // every y tied
  });

  it("divides like scipy (1/√3/√3 is 0.33333333333333337, not 1/3)", () => {
    expect(kendallTau(["b", "a", "c"], ["a", "b", "c"])).toBe(0.33333333333333337);
  });

  it("handles ties as tau-b", () => {
    // x ranks 1,1,2 ; y ranks 1,2,3: tot=3, xtie=1, ytie=0, dis=0, ntie=0 → 2/√2/√3
    expect(kendallTau(["a", "a", "b"], ["a", "b", "c"])).toBe(2 / Math.sqrt(2) / Math.sqrt(3));
  });

  it("orders by code point like numpy, not by UTF-16 unit", () => {
    // U+FF5E sorts before U+1F600 by code point, after it by UTF-16 unit.
    expect(compareNumpyStrings("\uff5e", "\u{1f600}")).toBe(-1);
    expect("\uff5e" < "\u{1f600}").toBe(false);
    expect(compareNumpyStrings("a\0", "a")).toBe(0);
  });

  it("refuses sequences of different lengths", () => {
    expect(() => kendallTau(["a"], ["a", "b"])).toThrow(RangeError);
  });

  it.runIf(pythonHas("numpy", "scipy"))("equals scipy.stats.kendalltau bit for bit on random string sequences", () => {
    const random = mulberry32(42);
    const alphabet = ["a", "b", "B", "ab", "a\0", "é", "\uff5e", "\u{1f600}", "(1, 'x')", "(10, 'x')", "(2, None)"];
    const cases: [string[], string[]][] = [];
    for (let i = 0; i < 250; i++) {
      const n = Math.floor(random() * 12);
      const k = 1 + Math.floor(random() * alphabet.length);
      const pick = () => alphabet[Math.floor(random() * k)];
      const x = Array.from({ length: n }, pick);
      // Half the cases permute x (as the SQL reward does), half draw y independently.
      const y = i % 2 === 0 ? [...x].sort(() => random() - 0.5) : Array.from({ length: n }, pick);
      cases.push([x, y]);
    }
    const expected = runPython<(number | null)[]>(
      [
        "from scipy.stats import kendalltau",
        "result = []",
        "for x, y in data:",
        "    t = kendalltau(x, y, nan_policy='omit').statistic",
        "    result.append(None if math.isnan(t) else float(t))",
      ].join("\n"),
      cases,
    );
    const got = cases.map(([x, y]) => kendallTau(x, y));
    const diffs = cases.map((c, i) => ({ c, got: got[i], want: expected[i] })).filter((d) => d.got !== d.want);
    expect(diffs).toEqual([]);
  });

  it("is fast on large inputs (n log n)", () => {
    const n = 50_000;
    const x = Array.from({ length: n }, (_, i) => `row ${String(i).padStart(6, "0")}`);
    const y = [...x].reverse();
    const t0 = performance.now();
    expect(kendallTau(x, y)).toBe(-1);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
