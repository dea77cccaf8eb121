import { describe, expect, it } from "vitest";
import { erf } from "./erf";
import { pyRound } from "./round";
import { mulberry32 } from "@/lib/seeded-random";
import { runPython } from "./testing/python-oracle";

describe("erf", () => {
  it("has the textbook values and symmetry", () => {
    expect(erf(0)).toBe(0);
    expect(Object.is(erf(-0), -0)).toBe(true);
    expect(erf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(erf(Number.NEGATIVE_INFINITY)).toBe(-1);
    expect(Number.isNaN(erf(Number.NaN))).toBe(true);
    expect(erf(10)).toBe(1);
    expect(erf(-1.3)).toBe(-erf(1.3));
  });

  it("matches python3's math.erf to within 1e-15 over random and integer arguments", () => {
    const random = mulberry32(7);
    const xs: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const r = random();
      const sign = random() < 0.5 ? -1 : 1;
      const x = [r * 7, r * 1e-3, r * 3, Math.round(r * 8), r * 1e-200][i % 5];
      xs.push(sign * x);
    }
    const expected = runPython<number[]>("result = [math.erf(x) for x in data]", xs);
    const worst = xs
      .map((x, i) => ({ x, got: erf(x), want: expected[i] }))
      .map((c) => ({ ...c, rel: Math.abs(c.got - c.want) / Math.max(Math.abs(c.want), Number.MIN_VALUE) }))
      .sort((a, b) => b.rel - a.rel)[0];
    expect(worst.rel).toBeLessThan(1e-15);
    // The bash reward takes erf of a count of paths: there the rounded score part must agree exactly.
    const ints = [0, 1, 2, 3, 4, 5, 6, 7, 10, 100];
    const parts = runPython<number[]>("result = [round(0.33 * (1 - math.erf(k)), 2) for k in data]", ints);
    expect(ints.map((k) => pyRound(0.33 * (1 - erf(k)), 2))).toEqual(parts);
  });
});
