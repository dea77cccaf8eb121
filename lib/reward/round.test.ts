import { describe, expect, it } from "vitest";
import { pyRound } from "./round";
import { mulberry32 } from "@/lib/seeded-random";
import { runPython } from "./testing/python-oracle";

describe("pyRound", () => {
  it("rounds the exact binary value, exact halves to even", () => {
    expect(pyRound(0.125)).toBe(0.12); // exact tie, 2 is even
    expect(pyRound(0.375)).toBe(0.38); // exact tie, 8 is even
    expect(pyRound(2.675)).toBe(2.67); // stored just below the half
    expect(pyRound(0.285)).toBe(0.28); // stored just below the half
    expect(pyRound(1.005)).toBe(1); // stored just below the half
    expect(pyRound(-0.125)).toBe(-0.12);
    expect(pyRound(2.5, 0)).toBe(2);
    expect(pyRound(3.5, 0)).toBe(4);
    expect(Object.is(pyRound(-0.001), -0)).toBe(true);
    expect(pyRound(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(pyRound(Number.NaN))).toBe(true);
    expect(pyRound(2 ** 60)).toBe(2 ** 60);
  });

  it("refuses a digit count outside 0..20", () => {
    expect(() => pyRound(1, -1)).toThrow(RangeError);
    expect(() => pyRound(1, 1.5)).toThrow(RangeError);
  });

  it("agrees with python3's round() on thousands of random and tie-heavy cases", () => {
    const random = mulberry32(20261129);
    const cases: [number, number][] = [];
    for (let i = 0; i < 4000; i++) {
      const digits = i % 5 === 0 ? Math.floor(random() * 6) : 2;
      let x: number;
      switch (i % 4) {
        case 0: // dyadic values: many exact ties
          x = Math.floor(random() * 4096) / 2 ** (1 + Math.floor(random() * 6));
          break;
        case 1: // values printed with three decimals: just off a tie
          x = Math.floor(random() * 100000) / 1000;
          break;
        case 2: // reward-like sums
          x = 0.01 + Math.floor(random() * 34) / 100 + Math.floor(random() * 34) / 100 + random() * 0.33;
          break;
        default:
          x = (random() - 0.5) * 10 ** Math.floor(random() * 12 - 4);
      }
      cases.push([random() < 0.2 ? -x : x, digits]);
    }
    const expected = runPython<number[]>("result = [round(x, n) for x, n in data]", cases);
    const got = cases.map(([x, n]) => pyRound(x, n));
    const mismatches = cases.filter((_, i) => !Object.is(got[i] + 0, expected[i] + 0));
    expect(mismatches).toEqual([]);
  });
});
