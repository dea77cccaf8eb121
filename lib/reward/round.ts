/**
 * Python 3's `round(x, ndigits)` for floats, digit for digit.
 *
 * Python rounds the exact binary value of `x` (so 2.675, stored as 2.67499999…, goes down) and sends
 * exact halves to the even neighbour (0.125 → 0.12). `Number.prototype.toFixed` also works on the
 * exact value but sends exact halves upward, and away from zero for negatives; the only difference
 * to fix is therefore the exact tie, which is detected exactly below.
 */
export function pyRound(x: number, ndigits = 2): number {
  if (!Number.isInteger(ndigits) || ndigits < 0 || ndigits > 20) {
    throw new RangeError(`pyRound: ndigits must be an integer in 0..20, got ${ndigits}`);
  }
  if (!Number.isFinite(x)) return x;
  const abs = Math.abs(x);
  // Every double at or above 2^52 is an integer: nothing after the point to round.
  if (abs >= 2 ** 52) return x;
  const sign = x < 0 || Object.is(x, -0) ? -1 : 1;
  let text = abs.toFixed(ndigits);
  // A tie needs x × 10^(n+1) to be an integer ending in 5, which forces x × 2^(n+1) to be an
  // integer; then the decimal expansion stops within n + 1 digits and toFixed(n + 1) is exact.
  if (Number.isInteger(abs * 2 ** (ndigits + 1))) {
    const longer = abs.toFixed(ndigits + 1);
    if (longer.endsWith("5")) {
      const down = longer.slice(0, -1).replace(/\.$/, "");
      const lastDigit = down.charCodeAt(down.length - 1) - 48;
      if (lastDigit % 2 === 0) text = down;
    }
  }
  const value = Number.parseFloat(text);
  return sign < 0 ? -value : value;
}

/** Keeps a reward in [0, 1]; NaN becomes 0. */
export function clamp01(x: number): number {
  if (!(x > 0)) return 0;
  return Math.min(x, 1);
}
