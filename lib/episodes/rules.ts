/**
 * Rules of an episode that every path (playground, studies, model runs, import) shares, apart
 * from the wire protocol that carries them. Client-safe: no server code.
 */

/** Default number of turns an episode may take before only submit is allowed. */
export const DEFAULT_TURN_LIMIT = 10;

/**
 * The turns an episode took, as InterCode counts them (`summary.turns_taken`): every action the
 * player chose is a turn, an explicit `submit` included (a model's own submit, a person's submit
 * before the limit). The submit that ends an episode because the turn limit was reached is the
 * forced submit InterCode leaves out of its count: it is scored but not stored as a turn (the
 * model loop's final submit, the playground's submit after `turnLimit` turns). So the count is
 * the number of stored turns, never more than the limit, and the playground header, the episode
 * list and the replay all show this number.
 */
export function turnsTaken(storedTurns: readonly unknown[] | number): number {
  return typeof storedTurns === "number" ? storedTurns : storedTurns.length;
}

/** Whether a submit now is the forced one: the turn limit is reached, so it is not a turn. */
export function isForcedSubmit(storedTurns: number, turnLimit: number): boolean {
  return storedTurns >= turnLimit;
}

/**
 * A study's Skip is an abandon whose reason starts with this prefix: it tells an explicit skip
 * (the task counts as done) from any other abandon (the study gives the task back).
 */
export const SKIP_REASON_PREFIX = "skip:";

/** The abandon reason a Skip sends (the annotator's reason, which may be empty). */
export function skipReason(reason: string): string {
  return `${SKIP_REASON_PREFIX} ${reason.trim() || "no reason given"}`.slice(0, 500);
}

/** Whether an abandoned episode's reason records a Skip. */
export function isSkipReason(reason: string | null | undefined): boolean {
  return !!reason && reason.startsWith(SKIP_REASON_PREFIX);
}

/**
 * Where a turn's action came from. A person types in the console or runs the editor (or presses
 * Submit: "button"); a model's actions are "model"; "api" is a person's action sent to the HTTP
 * API without saying where it was typed.
 */
export const TURN_SOURCES = ["console", "editor", "button", "model", "api"] as const;
/** The sources a person's action can have. */
export const HUMAN_TURN_SOURCES = ["console", "editor", "button", "api"] as const;
export type HumanTurnSource = (typeof HUMAN_TURN_SOURCES)[number];
