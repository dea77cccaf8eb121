import { MODEL_FIELDS_EMPTY, type Turn } from "@/lib/episodes/turn";

/**
 * A recorded person's turn with every field set, for the tests of what carries a Turn (the
 * engine's events, the live channel's): one fixture, so a field added to Turn is added once.
 */
export const SAMPLE_TURN: Turn = {
  index: 2,
  actor: "human",
  source: "console",
  action: "ls",
  observation: "a\n",
  ok: true,
  reward: null,
  durationMs: 3,
  timedOut: false,
  aborted: false,
  startedAt: new Date("2026-12-01T00:00:00Z"),
  ...MODEL_FIELDS_EMPTY,
};
