import { mulberry32 } from "@/lib/seeded-random";

/** One task attempted by both sides of a comparison: whether each side solved it, and its group (Spider hardness, file system). */
export interface PairedOutcome {
  a: boolean;
  b: boolean;
  group?: string | null;
}

/** A percentile bootstrap interval of (success rate of A) − (success rate of B), resampling tasks with their pair. */
export interface DiffInterval {
  /** The observed difference over the tasks as they are. */
  diff: number;
  low: number;
  high: number;
  /** The interval's coverage, e.g. 0.95. */
  level: number;
  resamples: number;
  seed: number;
}

/** The paired comparison of two sides over the same tasks. */
export interface PairedSummary {
  /** Tasks paired (solved or not by both sides). */
  tasks: number;
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
  /** Exact McNemar test (two-sided) on the tasks solved by one side only; 1 when there are none. */
  mcnemarP: number;
  /** Null when there are no tasks. */
  diffCI: DiffInterval | null;
}

export interface PairedOptions {
  resamples?: number;
  seed?: number;
  level?: number;
}

export const BOOTSTRAP_RESAMPLES = 10_000;
export const BOOTSTRAP_SEED = 1;
export const BOOTSTRAP_LEVEL = 0.95;

/**
 * Exact McNemar test: under "neither side is better", each task solved by one side only is A's or
 * B's with probability 1/2, so the count A won is Binomial(onlyA + onlyB, 1/2). The two-sided p is
 * the probability of a split at least as uneven, either way (scipy's `binomtest(onlyA, n, 0.5)`;
 * the distribution is symmetric, so that is twice the smaller tail, capped at 1).
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  for (const [k, v] of Object.entries({ onlyA, onlyB })) if (!Number.isInteger(v) || v < 0) throw new RangeError(`${k} must be a count, got ${v}`);
  const n = onlyA + onlyB;
  const k = Math.min(onlyA, onlyB);
  if (n === 0 || onlyA === onlyB) return 1;
  // P(X <= k) for X ~ Bin(n, 1/2): the terms from pmf(0) = 2^-n by the ratio pmf(i) / pmf(i - 1) = (n - i + 1) / i,
  // exact at the start while 2^-n is a normal float; beyond that, in log space (no underflow).
  let tail = 0;
  if (n <= 1000) {
    let term = 2 ** -n;
    for (let i = 0; i <= k; i++) {
      if (i > 0) term = (term * (n - i + 1)) / i;
      tail += term;
    }
  } else {
    let logTerm = -n * Math.LN2;
    const logs: number[] = [];
    for (let i = 0; i <= k; i++) {
      if (i > 0) logTerm += Math.log(n - i + 1) - Math.log(i);
      logs.push(logTerm);
    }
    const max = logs[logs.length - 1]!;
    tail = Math.exp(max) * logs.reduce((sum, t) => sum + Math.exp(t - max), 0);
  }
  return Math.min(1, 2 * tail);
}

/**
 * Quantile q of sorted values with linear interpolation between order statistics (numpy's default
 * `np.percentile`, which scipy's bootstrap uses for the percentile interval).
 */
function quantileSorted(sorted: Float64Array, q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (pos - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Percentile bootstrap of the paired difference in success rate: draws the tasks with replacement
 * (each draw keeps both sides' outcomes of that task, so a task's difficulty cancels), `resamples`
 * times, from a seeded generator (lib/seeded-random.ts): the same outcomes and seed give the same
 * interval. Null when there are no tasks.
 */
export function bootstrapDiff(
  pairs: readonly PairedOutcome[],
  { resamples = BOOTSTRAP_RESAMPLES, seed = BOOTSTRAP_SEED, level = BOOTSTRAP_LEVEL }: PairedOptions = {},
): DiffInterval | null {
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be between 0 and 1, got ${level}`);
  const n = pairs.length;
  if (n === 0) return null;
  // Per task: +1 solved by A only, −1 by B only, 0 otherwise; the rate difference is their mean.
  const d = Int8Array.from(pairs, (p) => Number(p.a) - Number(p.b));
  const rand = mulberry32(seed);
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rand() * n)]!;
    diffs[r] = s / n;
  }
  diffs.sort();
  const alpha = (1 - level) / 2;
  const diff = d.reduce((s, x) => s + x, 0) / n;
  return { diff, low: quantileSorted(diffs, alpha), high: quantileSorted(diffs, 1 - alpha), level, resamples, seed };
}

/** Counts, McNemar's p and the bootstrap interval over one set of paired tasks. */
export function summarisePaired(pairs: readonly PairedOutcome[], options: PairedOptions = {}): PairedSummary {
  let both = 0;
  let onlyA = 0;
  let onlyB = 0;
  let neither = 0;
  for (const p of pairs) {
    if (p.a && p.b) both++;
    else if (p.a) onlyA++;
    else if (p.b) onlyB++;
    else neither++;
  }
  return { tasks: pairs.length, both, onlyA, onlyB, neither, mcnemarP: mcnemarExact(onlyA, onlyB), diffCI: bootstrapDiff(pairs, options) };
}

/** The paired comparison overall and per group (groups sorted by name; tasks with no group under "unknown"). */
export function comparePaired(
  pairs: readonly PairedOutcome[],
  options: PairedOptions = {},
): { overall: PairedSummary; groups: Array<{ group: string } & PairedSummary> } {
  const byGroup = new Map<string, PairedOutcome[]>();
  for (const p of pairs) {
    const g = p.group ?? "unknown";
    const list = byGroup.get(g) ?? [];
    list.push(p);
    byGroup.set(g, list);
  }
  const groups = [...byGroup.keys()].sort().map((group) => ({ group, ...summarisePaired(byGroup.get(group)!, options) }));
  return { overall: summarisePaired(pairs, options), groups: groups.length === 1 && groups[0]!.group === "unknown" ? [] : groups };
}
