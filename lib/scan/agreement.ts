/** One episode both a scanner and a person judged: did each say the tag applies? */
export interface JudgedPair {
  scanner: boolean;
  person: boolean;
}

/**
 * How far a scanner agrees with people on the episodes both judged, people taken as the truth:
 * precision (of the scanner's yes, the share people also tagged), recall (of the people's tags,
 * the share the scanner found) and Cohen's kappa (agreement beyond what two raters saying yes at
 * these rates would reach by chance). A measure is null when it divides by zero (no yes from the
 * scanner, none from people, or both raters constant so chance agreement is 1).
 */
export interface Agreement {
  episodes: number;
  /** Scanner yes, person yes. */
  truePositive: number;
  /** Scanner yes, person no. */
  falsePositive: number;
  /** Scanner no, person yes. */
  falseNegative: number;
  /** Scanner no, person no. */
  trueNegative: number;
  precision: number | null;
  recall: number | null;
  kappa: number | null;
}

export function agreement(pairs: readonly JudgedPair[]): Agreement {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const p of pairs) {
    if (p.scanner && p.person) tp++;
    else if (p.scanner) fp++;
    else if (p.person) fn++;
    else tn++;
  }
  const n = pairs.length;
  const observed = n ? (tp + tn) / n : 0;
  const scannerYes = n ? (tp + fp) / n : 0;
  const personYes = n ? (tp + fn) / n : 0;
  const chance = scannerYes * personYes + (1 - scannerYes) * (1 - personYes);
  return {
    episodes: n,
    truePositive: tp,
    falsePositive: fp,
    falseNegative: fn,
    trueNegative: tn,
    precision: tp + fp ? tp / (tp + fp) : null,
    recall: tp + fn ? tp / (tp + fn) : null,
    kappa: n && chance < 1 ? (observed - chance) / (1 - chance) : null,
  };
}
