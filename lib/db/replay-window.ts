// The replay's window over a long episode, shared by the server (what a page and the paged API
// hand out) and the client (what it asks for and keeps). Client-safe: no server code here.

/** Turns a page or one request of /api/episodes/:id/turns carries at most. */
export const WINDOW_TURNS = 50;

/**
 * Characters of each observation in a window. The timeline shows only the current turn's output,
 * so the others travel as a preview; the current one is fetched again at `TURN_CUT`.
 */
export const WINDOW_CUT = 300;

/** Characters of the current turn's observation fetched with it; "show all" fetches the rest. */
export const TURN_CUT = 20_000;

/** Characters of each observation in the compare view's cells; "show all" fetches the rest. */
export const COMPARE_CUT = 2_000;

/** Points of the reward curve at most: a longer episode is aggregated into buckets of turns. */
export const CURVE_POINTS = 500;

/** Turns the client keeps around the current one; the farther ones are dropped (and fetched again if needed). */
export const KEEP_TURNS = 300;

/** The first turn index of the window of `size` turns around `turn` (0-based) in an episode of `count` turns. */
export function windowStart(turn: number, count: number, size = WINDOW_TURNS): number {
  return Math.max(0, Math.min(turn - Math.floor(size / 2), count - size));
}

/** Turns per point of the reward curve of an episode of `count` turns. */
export function curveBucket(count: number): number {
  return Math.max(1, Math.ceil(count / CURVE_POINTS));
}
