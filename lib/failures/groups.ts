import "server-only";
import { createHash } from "node:crypto";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { listFailureTagsByFilters, type FailureTagRow } from "@/lib/db/failures";
import { BadInputError } from "@/lib/errors";
import { DETECTORS } from "./detectors";
import { LAST_ERROR_TAG } from "./machine-tags";
import type { FailureGroup, FailureGroupBy, FailureGroupEpisode, FailureGroupsResult } from "./view-types";

/** How many example episodes a group lists inline (the group's page lists all of them). */
export const GROUP_EXAMPLES = 5;

export const FAILURE_GROUP_BYS: readonly FailureGroupBy[] = ["detector", "cluster"];

/** Parses --group-by / ?groupBy, naming a bad value. */
export function parseFailureGroupBy(v: string | undefined, where = "--group-by"): FailureGroupBy {
  if (v === undefined || v === "") return "detector";
  if (v === "detector" || v === "cluster") return v;
  throw new BadInputError(`unknown grouping ${JSON.stringify(v)}; one of detector, cluster`, where);
}

/** The key of the group an episode falls in when no detector fired / it hit no error. */
export const NO_DETECTOR = "none";
const NO_ERROR = "(no error)";

/** A group's id: derived from its key alone, so the same failure keeps its id across re-runs and stores. */
export function failureGroupId(key: FailureGroup["key"]): string {
  const text = "detector" in key ? `detector\u0000${key.detector}` : `cluster\u0000${key.cluster}`;
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

interface EpisodeAgg {
  row: FailureTagRow;
  /** detector name -> first turn it points at (null: the episode). */
  detectors: Map<string, number | null>;
  lastError: { turn: number | null; message: string } | null;
}

function collect(rows: FailureTagRow[]): EpisodeAgg[] {
  const byId = new Map<string, EpisodeAgg>();
  for (const r of rows) {
    let e = byId.get(r.id);
    if (!e) byId.set(r.id, (e = { row: r, detectors: new Map(), lastError: null }));
    if (!r.tag) continue;
    if (r.tag === LAST_ERROR_TAG) e.lastError = { turn: r.turnIndex, message: r.text ?? "" };
    else if (!e.detectors.has(r.tag) || (r.turnIndex !== null && (e.detectors.get(r.tag) ?? Infinity) > r.turnIndex)) e.detectors.set(r.tag, r.turnIndex);
  }
  return [...byId.values()];
}

const bump = (m: Record<string, number>, k: string | null) => {
  const key = k ?? "-";
  m[key] = (m[key] ?? 0) + 1;
};

/** The groups an episode falls in, with the turn each points at. */
function keysOf(e: EpisodeAgg, groupBy: FailureGroupBy): [FailureGroup["key"], number | null][] {
  if (groupBy === "cluster") return [[{ cluster: `${e.row.environment}: ${e.lastError?.message || NO_ERROR}` }, e.lastError?.turn ?? null]];
  if (!e.detectors.size) return [[{ detector: NO_DETECTOR }, null]];
  return [...e.detectors].map(([name, turn]) => [{ detector: name }, turn]);
}

type FullGroup = FailureGroup & { all: FailureGroupEpisode[] };

const collator = new Intl.Collator("en", { numeric: true });
/**
 * Episodes in an order that comes from what they hold (environment, task, model, policy, turn),
 * not from their ids (time-ordered at import): the same logs list alike in every store.
 */
function byContent(a: FailureGroupEpisode, b: FailureGroupEpisode): number {
  return (
    collator.compare(a.environment, b.environment) ||
    collator.compare(a.taskId, b.taskId) ||
    collator.compare(a.model ?? "", b.model ?? "") ||
    collator.compare(a.policy ?? "", b.policy ?? "") ||
    (a.turn ?? -1) - (b.turn ?? -1) ||
    (a.reward ?? -1) - (b.reward ?? -1) ||
    a.episodeId.localeCompare(b.episodeId)
  );
}

function buildGroups(episodes: EpisodeAgg[], groupBy: FailureGroupBy): FullGroup[] {
  const groups = new Map<string, FullGroup>();
  for (const e of episodes) {
    for (const [key, turn] of keysOf(e, groupBy)) {
      const id = failureGroupId(key);
      let g = groups.get(id);
      if (!g) {
        const definition = "detector" in key ? (DETECTORS.find((d) => d.name === key.detector)?.definition ?? null) : null;
        groups.set(
          id,
          (g = { id, key, definition, episodes: 0, byModel: {}, byPolicy: {}, byHardness: {}, byEnvironment: {}, byModelPolicy: [], examples: [], all: [] }),
        );
      }
      g.episodes++;
      bump(g.byModel, e.row.model ?? (e.row.playerKind === "human" ? (e.row.annotator ? `person:${e.row.annotator}` : "person") : null));
      bump(g.byPolicy, e.row.policy);
      bump(g.byHardness, e.row.hardness);
      bump(g.byEnvironment, e.row.environment);
      const mp = g.byModelPolicy.find((x) => x.model === e.row.model && x.policy === e.row.policy);
      if (mp) mp.episodes++;
      else g.byModelPolicy.push({ model: e.row.model, policy: e.row.policy, episodes: 1 });
      g.all.push({
        episodeId: e.row.id,
        environment: e.row.environment,
        taskId: e.row.taskId,
        model: e.row.model,
        policy: e.row.policy,
        hardness: e.row.hardness,
        reward: e.row.reward,
        turn,
      });
    }
  }
  const keyText = (g: FailureGroup) => ("detector" in g.key ? g.key.detector : g.key.cluster);
  return [...groups.values()]
    .map((g) => ({
      ...g,
      byModelPolicy: g.byModelPolicy.sort((a, b) => b.episodes - a.episodes || `${a.model} ${a.policy}`.localeCompare(`${b.model} ${b.policy}`)),
      all: g.all.sort(byContent),
    }))
    .sort((a, b) => b.episodes - a.episodes || keyText(a).localeCompare(keyText(b)));
}

/**
 * Groups the failing episodes matching `filters` (ended, not solved) by what went wrong: by each
 * detector that fired on them (an episode counts in every one; "none" when none fired), or by the
 * cluster of their last error (the environment and the error message normalised: the same mistake
 * on different tasks falls together; "(no error)" when no turn failed). Each group has a
 * content-derived id, its counts per model, policy, hardness and environment, and its first
 * episodes with the turn to look at. Groups come largest first, then by key; episodes by task,
 * model and policy: the same logs give the same result in any store.
 */
export async function listFailureGroups({
  filters = {},
  groupBy = "detector",
}: {
  filters?: EpisodeFilters;
  groupBy?: FailureGroupBy;
}): Promise<FailureGroupsResult> {
  const episodes = collect(await listFailureTagsByFilters({ filters }));
  const groups = buildGroups(episodes, groupBy).map(({ all, ...g }) => ({ ...g, examples: all.slice(0, GROUP_EXAMPLES) }));
  return { groupBy, failing: episodes.length, groups };
}

/** One group (by id) with all its episodes, under the same filters: the group's page. Null when no failing episode is in it. */
export async function getFailureGroupById({
  id,
  groupBy,
  filters = {},
}: {
  id: string;
  groupBy: FailureGroupBy;
  filters?: EpisodeFilters;
}): Promise<{ group: FailureGroup; episodes: FailureGroupEpisode[] } | null> {
  const g = buildGroups(collect(await listFailureTagsByFilters({ filters })), groupBy).find((x) => x.id === id);
  if (!g) return null;
  const { all, ...group } = g;
  return { group: { ...group, examples: all.slice(0, GROUP_EXAMPLES) }, episodes: all };
}
