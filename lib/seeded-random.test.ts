import { describe, expect, it } from "vitest";
import { mulberry32 } from "./seeded-random";

describe("mulberry32", () => {
  it("gives the same sequence for the same seed and another for another seed", () => {
    const take = (seed: number) => Array.from({ length: 20 }, mulberry32(seed));
    expect(take(42)).toEqual(take(42));
    expect(take(42)).not.toEqual(take(43));
  });

  it("stays in [0, 1) and spreads evenly over ten bins", () => {
    const next = mulberry32(7);
    const bins = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i++) {
      const r = next();
      expect(r >= 0 && r < 1).toBe(true);
      bins[Math.floor(r * 10)]++;
    }
    for (const b of bins) expect(Math.abs(b - 2000)).toBeLessThan(200);
  });
});
