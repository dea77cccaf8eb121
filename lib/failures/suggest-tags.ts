import { isSubmit } from "@/lib/env/submit";
import { stripAnsi } from "@/lib/viewer/ansi";
import { DETECTORS, runDetectors, type DetectorEpisode, type DetectorTurn } from "./detectors";
import { OUTPUT_RULES, turnTimedOut, TIMEOUT_RE } from "./errors";
import { readDetectorTag } from "./machine-tags";

/**
 * The replay's suggested tags, for a person to accept or reject: each turn's error in its
 * environment's words (lib/failures/errors.ts), the failure detectors' hits on the turns they point
 * at (lib/failures/detectors.ts: the one home of the rules), and a wrong submitted answer.
 */

/** The error kinds a turn is suggested under, with what each means. */
const ERROR_TAGS: readonly { tag: string; description: string }[] = [
  { tag: "query-error", description: "SQL: a query failed (syntax, unknown column, ...)" },
  { tag: "no-such-table", description: "SQL: a table that does not exist was queried" },
  { tag: "no-such-column", description: "SQL: a column that does not exist was referenced" },
  { tag: "command-not-found", description: "bash, CTF: a command or program that does not exist was called" },
  { tag: "no-such-file", description: "bash, CTF: a path that does not exist was referenced" },
  { tag: "exception", description: "Python: the code raised an exception" },
  { tag: "name-error", description: "Python: a name that is not defined was used" },
  { tag: "timeout", description: "an action ran past the time limit" },
];

/** The starting taxonomy of failure tags (error kinds, the detectors, and a person's judgements); users extend it by using new tag names. */
export const BASE_TAXONOMY: readonly { tag: string; description: string }[] = [
  ...ERROR_TAGS,
  ...DETECTORS.map((d) => ({ tag: d.name, description: d.definition })),
  { tag: "wrong-answer", description: "submitted an answer that did not get the full reward" },
  { tag: "invalid-action", description: "an action could not be executed" },
  { tag: "misread-task", description: "the player solved a different problem than the one asked" },
];

/** What a suggestion rule needs to know of a turn. */
export type TurnForTags = DetectorTurn;

export type EpisodeForTags = Omit<DetectorEpisode, "turnLimit" | "query"> & Partial<Pick<DetectorEpisode, "turnLimit" | "query">>;

/** A tag suggested by a rule, on a turn or (turnIndex null) on the episode. */
export interface SuggestedTag {
  tag: string;
  turnIndex: number | null;
  reason: string;
}

/**
 * Suggests failure tags from an episode's turns: at most one error tag a turn (a missing SQL table
 * is no-such-table once, not also a query error), each detector's hit on each turn it points at,
 * and wrong-answer on a submit under the full reward. Each tag at most once per turn, with its evidence.
 */
export function suggestTags(ep: EpisodeForTags): SuggestedTag[] {
  const { out, add } = collector();
  addTurnTags(ep, ep.turns, null, add);
  const detected = runDetectors({ ...ep, turnLimit: ep.turnLimit ?? 0, query: ep.query ?? "" });
  for (const h of detected) for (const turn of h.turns.length ? h.turns : [null]) add(h.detector, turn, h.evidence);
  if (ep.status === "submitted" && !ep.success && !out.some((s) => s.tag === "wrong-answer")) {
    add("wrong-answer", ep.turns.length ? ep.turns[ep.turns.length - 1].index : null, `ended with reward ${ep.reward ?? 0}, below 1.0`);
  }
  return out.sort((a, b) => (a.turnIndex ?? -1) - (b.turnIndex ?? -1));
}

/** The suggestions so far, each tag at most once per turn. */
function collector() {
  const out: SuggestedTag[] = [];
  const seen = new Set<string>();
  const add = (tag: string, turnIndex: number | null, reason: string) => {
    const key = `${tag}@${turnIndex}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ tag, turnIndex, reason });
  };
  return { out, add };
}

/** Each turn's error tag and wrong answer; `prevObs` is the output of the turn before the first one (null for none). */
function addTurnTags(
  ep: Pick<EpisodeForTags, "environment" | "success">,
  turns: TurnForTags[],
  prevObs: string | null,
  add: (tag: string, turnIndex: number | null, reason: string) => void,
): void {
  const rules = OUTPUT_RULES[ep.environment] ?? [];
  for (const t of turns) {
    const obs = stripAnsi(t.observation);
    const firstLine = (re: RegExp) =>
      obs
        .split("\n")
        .find((l) => re.test(l))
        ?.trim()
        .slice(0, 160) ?? "";
    const submit = isSubmit(t.action);
    if (turnTimedOut(t)) add("timeout", t.index, firstLine(TIMEOUT_RE) || "the action timed out");
    else if (!(submit && obs === prevObs)) {
      // A submit whose output is the last output again shows the answer it scored, not a new error
      // (InterCode's SQL logs also hold "submit;" run as a query, which is one).
      const rule = rules.find((r) => r.re.test(obs));
      if (rule) add(rule.tag, t.index, firstLine(rule.re) || obs.trim().slice(0, 160));
    }
    prevObs = obs;
    if (submit && !ep.success && t.reward != null && t.reward < 1) add("wrong-answer", t.index, `submitted with reward ${t.reward}`);
  }
}

/**
 * The suggested tags of one page of an episode's turns, as the replay shows them beside its window:
 * `turns` (in order) with `before`, the turn just before the page (a submit repeating its output is
 * no new error). Each turn's error and wrong answer as `suggestTags` gives them; the detectors' hits
 * as the store holds them (their machine tags, written at import and at episode end: `stored`) on
 * the page's turns, and those on the episode; the ended-below-1 wrong answer on the last turn when
 * the page holds it and no submit of the page was one. Costs the page, not the episode.
 */
export function suggestTagsOnPage({
  episode,
  turns,
  before,
  lastIndex,
  stored,
}: {
  episode: Pick<EpisodeForTags, "environment" | "success" | "status" | "reward">;
  turns: TurnForTags[];
  before: TurnForTags | null;
  /** The episode's last turn index (-1 for none). */
  lastIndex: number;
  /** The episode's stored machine tags (any source: only the detectors' are read). */
  stored: readonly { tag: string | null; turnIndex: number | null; text: string | null; source: string; kind: string }[];
}): SuggestedTag[] {
  const { out, add } = collector();
  addTurnTags(episode, turns, before ? stripAnsi(before.observation) : null, add);
  const onPage = new Set(turns.map((t) => t.index));
  const detectors = new Set(DETECTORS.map((d) => d.name));
  for (const a of stored) {
    if (a.source !== "detector" || a.kind !== "tag" || !a.tag || !detectors.has(a.tag)) continue;
    const hit = readDetectorTag(a);
    if (!hit.turns.length) add(a.tag, null, hit.evidence);
    for (const turn of hit.turns) if (onPage.has(turn)) add(a.tag, turn, hit.evidence);
  }
  if (episode.status === "submitted" && !episode.success && onPage.has(lastIndex) && !out.some((s) => s.tag === "wrong-answer")) {
    add("wrong-answer", lastIndex, `ended with reward ${episode.reward ?? 0}, below 1.0`);
  }
  return out.sort((a, b) => (a.turnIndex ?? -1) - (b.turnIndex ?? -1));
}
