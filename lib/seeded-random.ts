/**
 * A small seeded PRNG (mulberry32): the same seed gives the same sequence of numbers in [0, 1).
 * Used where a choice must be replayable: a random task from a seed, a study's task sample, and
 * the random cases of the reward tests (a failing case can be rerun from its seed).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
