/**
 * What can be odd about an episode as a log recorded it. The importer stores such an episode as
 * logged (nothing is clamped, filled in or dropped) and names each oddity on it
 * (`Episode.flags`, space-separated), so the viewer can show it, a list or `icstudio stats
 * --flag` can select it, and the import summary counts it. One table, read by all of them.
 */
export const EPISODE_FLAGS = {
  "negative-reward": "a reward below 0 (InterCode's SQL reward multiplies overlap by Kendall's tau without clamping)",
  "reward-above-one": "a reward above 1",
  blocked: "the last action is `blocked`: the model's reply could not be parsed, and nothing ran",
  "missing-observation": "fewer observations than actions; a missing observation is stored empty",
  "ragged-history": "fewer rewards or valid_action entries than actions (beyond a blocked last action); the missing ones are stored as unknown",
  "forced-submit": "the turn limit was reached and the log appended a final `submit` that its turn count leaves out",
  "turns-mismatch": "the log's own turn count (turns_taken) differs from its number of actions for no reason named here",
  "execute-wrapped": "actions are logged as the agent wrote them (ReAct's `execute[...]`), not as they ran",
  "no-actions": "the log holds no action at all (e.g. a Plan & Solve plan with no steps; a reward logged with no action is the episode's own)",
  "task-text-differs": "the log's question differs from its task's in the task set (a reworded task): the episode keeps the id its log gives",
  "task-unlinked":
    "the log's task could not be checked at import: its task set is not installed, or holds no task at that id or position; the id is the log's own",
  // Inspect eval logs and Harbor's ATIF trajectories (lib/trajectories/inspect, lib/trajectories/atif).
  unscored: "no score: an Inspect sample without scores, or a Harbor trial whose verifier never ran (no reward file); the reward is stored as unknown",
  "unknown-events": "the Inspect sample holds event types the Studio does not know; they are kept with the episode's source record",
  "tool-result-without-call": "a tool result answers no tool call the log holds; it is stored as a turn with an empty action",
  "sample-error": "the sample ended in an error (Inspect's sample error, or an ATIF trial's exception)",
  "no-environment": "the task used none of InterCode's environments' tools (no bash, python or sql tool call); stored as bash",
  "unfinished-log": "the log was still being written (an Inspect .eval without header.json, or status started)",
  unfinished:
    "the record says the episode was still running (or interrupted): an imported episode cannot go on, so it is stored abandoned (it neither seals its task nor counts as running)",
} as const;

export type EpisodeFlag = keyof typeof EPISODE_FLAGS;

export const isEpisodeFlag = (s: string): s is EpisodeFlag => Object.hasOwn(EPISODE_FLAGS, s);
