/**
 * The error function, accurate to a few units in the last place, like Python's `math.erf`.
 *
 * Three expansions, each with little cancellation in its range:
 * - |x| < 0.75: the Maclaurin series.
 * - |x| < 1.4: erf(x) = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·5···(2n+1)), a series of positive terms.
 * - |x| ≥ 1.4: erf(x) = 1 − erfc(x), with erfc from its continued fraction (modified Lentz).
 * Past |x| ≈ 5.93, erfc(x) is below half an ulp of 1 and erf(x) is exactly ±1 in doubles.
 */
export function erf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x === 0) return x; // keeps the sign of −0, as math.erf does
  const a = Math.abs(x);
  const sign = x < 0 ? -1 : 1;
  if (a >= 6) return sign;
  if (a < 0.75) return sign * erfTaylor(a);
  if (a < 1.4) return sign * erfSeries(a);
  return sign * (1 - erfcContinuedFraction(a));
}

const TWO_OVER_SQRT_PI = 1.1283791670955126;
const ONE_OVER_SQRT_PI = 0.5641895835477563;

/** Maclaurin series Σ (−1)ⁿ x^(2n+1) / (n! (2n+1)); little cancellation while x is small. */
function erfTaylor(a: number): number {
  const a2 = a * a;
  let power = a;
  let sum = a;
  for (let n = 1; n < 100; n++) {
    power *= -a2 / n;
    const next = sum + power / (2 * n + 1);
    if (next === sum) break;
    sum = next;
  }
  return TWO_OVER_SQRT_PI * sum;
}

function erfSeries(a: number): number {
  const a2 = a * a;
  let term = a;
  let sum = a;
  for (let n = 1; n < 200; n++) {
    term *= (2 * a2) / (2 * n + 1);
    const next = sum + term;
    if (next === sum) break;
    sum = next;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-a2) * sum;
}

/** erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))), for x ≥ 1.4. */
function erfcContinuedFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const ak = k / 2;
    d = x + ak * d;
    if (d === 0) d = tiny;
    c = x + ak / c;
    if (c === 0) c = tiny;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-17) break;
  }
  return (ONE_OVER_SQRT_PI * Math.exp(-x * x)) / f;
}
