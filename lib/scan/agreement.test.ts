import { describe, expect, it } from "vitest";
import { agreement, type JudgedPair } from "./agreement";

const judged = (tp: number, fp: number, fn: number, tn: number): JudgedPair[] => [
  ...Array.from({ length: tp }, () => ({ scanner: true, person: true })),
  ...Array.from({ length: fp }, () => ({ scanner: true, person: false })),
  ...Array.from({ length: fn }, () => ({ scanner: false, person: true })),
  ...Array.from({ length: tn }, () => ({ scanner: false, person: false })),
];

describe("agreement", () => {
  it("gives precision, recall and kappa of a hand-checked table", () => {
    // 50 episodes: 20 both yes, 5 scanner only, 10 person only, 15 both no.
    // precision 20/25 = 0.8; recall 20/30 = 2/3; observed 35/50 = 0.7;
    // chance 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa (0.7 - 0.5) / (1 - 0.5) = 0.4.
    const a = agreement(judged(20, 5, 10, 15));
    expect(a).toMatchObject({ episodes: 50, truePositive: 20, falsePositive: 5, falseNegative: 10, trueNegative: 15 });
    expect(a.precision).toBeCloseTo(0.8, 15);
    expect(a.recall).toBeCloseTo(2 / 3, 15);
    expect(a.kappa).toBeCloseTo(0.4, 15);
  });

  it("is below zero when the scanner disagrees more than chance, and 1 when it always agrees", () => {
    // 6 yes/no swapped, 2 agreeing: observed 0.25; both say yes half the time, chance 0.5; kappa -0.5.
    expect(agreement(judged(1, 3, 3, 1)).kappa).toBeCloseTo(-0.5, 15);
    expect(agreement(judged(4, 0, 0, 6))).toMatchObject({ precision: 1, recall: 1, kappa: 1 });
  });

  it("leaves undefined measures null instead of dividing by zero", () => {
    expect(agreement([])).toMatchObject({ episodes: 0, precision: null, recall: null, kappa: null });
    // Nobody said yes: no precision or recall; both constant, chance agreement 1, no kappa.
    expect(agreement(judged(0, 0, 0, 5))).toMatchObject({ precision: null, recall: null, kappa: null });
    // The scanner never says yes: recall 0, no precision.
    expect(agreement(judged(0, 0, 3, 2))).toMatchObject({ precision: null, recall: 0, kappa: 0 });
  });
});
