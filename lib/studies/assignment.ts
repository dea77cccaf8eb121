import { mulberry32 } from "@/lib/seeded-random";

/** How each participant's task order is made (lib/studies/studies.ts studyAssignSchema). */
export type Assign = "fixed" | "random" | "balanced";

/**
 * The order participant number `position` (0-based) works a study's tasks in:
 * - fixed: the study's order for everyone;
 * - random: a shuffle seeded by the study id and the position (the same participant always gets the same order);
 * - balanced: row `position mod n` of a cyclic Latin square, so over each n participants every task
 *   is worked exactly once at every position (order effects cancel out).
 */
export function taskOrderFor(tasks: readonly string[], assign: Assign, position: number, studyId: string): string[] {
  const n = tasks.length;
  if (assign === "fixed" || n < 2) return [...tasks];
  if (assign === "balanced") return tasks.map((_, j) => tasks[(j + position) % n]);
  const rnd = mulberry32(hashSeed(`${studyId}#${position}`));
  const out = [...tasks];
  for (let i = n - 1; i > 0; i--) {
    const k = Math.floor(rnd() * (i + 1));
    [out[i], out[k]] = [out[k], out[i]];
  }
  return out;
}

/** A 32-bit seed of a string (FNV-1a). */
function hashSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
