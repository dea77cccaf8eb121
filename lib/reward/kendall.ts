/**
 * Kendall's tau-b as `scipy.stats.kendalltau(x, y)` computes it by default, for two equal-length
 * sequences of strings.
 *
 * Strings are ordered as numpy orders a `str` array: by Unicode code point (not by UTF-16 unit, as
 * JavaScript's `<` does), and with trailing NUL characters ignored (numpy's fixed-width strings drop
 * them). The statistic is built from integer pair counts, then divided exactly as scipy divides
 * (two square roots, one after the other) and clipped to [−1, 1], so the float is scipy's to the bit.
 *
 * @returns tau-b in [−1, 1], or null where scipy gives NaN: fewer than two items, or every item
 * tied in either sequence.
 * @throws RangeError when the sequences differ in length (scipy raises ValueError).
 */
export function kendallTau(x: readonly string[], y: readonly string[]): number | null {
  if (x.length !== y.length) {
    throw new RangeError(`kendallTau: sequences differ in length (${x.length} and ${y.length})`);
  }
  const n = x.length;
  if (n < 2) return null;
  const rx = denseRanks(x);
  const ry = denseRanks(y);

  // Sort the pairs by x rank, then y rank; discordant pairs are then the strict inversions of y.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => rx[a] - rx[b] || ry[a] - ry[b]);
  const xs = order.map((i) => rx[i]);
  const ys = order.map((i) => ry[i]);

  let jointTies = 0;
  for (let i = 0, start = 0; i <= n; i++) {
    if (i === n || xs[i] !== xs[start] || ys[i] !== ys[start]) {
      const run = i - start;
      jointTies += (run * (run - 1)) / 2;
      start = i;
    }
  }
  const xTies = tiedPairs(rx);
  const yTies = tiedPairs(ry);
  const total = (n * (n - 1)) / 2;
  if (xTies === total || yTies === total) return null;

  const discordant = countStrictInversions(ys);
  const concordantMinusDiscordant = total - xTies - yTies + jointTies - 2 * discordant;
  const tau = concordantMinusDiscordant / Math.sqrt(total - xTies) / Math.sqrt(total - yTies);
  return Math.min(1, Math.max(-1, tau));
}

/** Orders strings by code point with trailing NULs dropped, as numpy compares `str` arrays. */
export function compareNumpyStrings(a: string, b: string): number {
  const sa = a.replace(/\0+$/, "");
  const sb = b.replace(/\0+$/, "");
  if (sa === sb) return 0;
  const ia = sa[Symbol.iterator]();
  const ib = sb[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done) return cb.done ? 0 : -1;
    if (cb.done) return 1;
    const pa = ca.value.codePointAt(0) ?? 0;
    const pb = cb.value.codePointAt(0) ?? 0;
    if (pa !== pb) return pa < pb ? -1 : 1;
  }
}

/** Ranks 1..k with equal values sharing a rank. */
function denseRanks(values: readonly string[]): number[] {
  const keys = values.map((v) => v.replace(/\0+$/, ""));
  const order = keys.map((_, i) => i).sort((a, b) => compareNumpyStrings(keys[a], keys[b]));
  const ranks = new Array<number>(values.length);
  let rank = 0;
  for (let k = 0; k < order.length; k++) {
    if (k === 0 || keys[order[k]] !== keys[order[k - 1]]) rank++;
    ranks[order[k]] = rank;
  }
  return ranks;
}

/** Number of pairs that share a rank. */
function tiedPairs(ranks: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let pairs = 0;
  for (const c of counts.values()) pairs += (c * (c - 1)) / 2;
  return pairs;
}

/** Pairs i < j with values[i] > values[j], by merge sort in O(n log n). */
function countStrictInversions(values: readonly number[]): number {
  let a = values.slice();
  let b = new Array<number>(a.length);
  let inversions = 0;
  for (let width = 1; width < a.length; width *= 2) {
    for (let lo = 0; lo < a.length; lo += 2 * width) {
      const mid = Math.min(lo + width, a.length);
      const hi = Math.min(lo + 2 * width, a.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (a[j] < a[i]) {
          inversions += mid - i;
          b[k++] = a[j++];
        } else {
          b[k++] = a[i++];
        }
      }
      while (i < mid) b[k++] = a[i++];
      while (j < hi) b[k++] = a[j++];
    }
    [a, b] = [b, a];
  }
  return inversions;
}
