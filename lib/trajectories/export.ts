import "server-only";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import type { Episode, Turn } from "@/lib/db/episodes";
import type { TranscriptMessage } from "@/lib/db/transcripts";
import type { Recording } from "@/lib/recording/events";
import { iterateEpisodesWithTurns } from "@/lib/db/export-queries";
import { words } from "@/lib/db/rows";
import { EPISODE_FORMAT_VERSION, type JsonlEpisode, jsonlTurn, LINE_FIELDS } from "./jsonl-schema";

export type ExportFormat = "jsonl" | "intercode";

function parseJson(s: string | null): unknown {
  if (s === null) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * How a line writes a stored field where it differs from the store: times as ISO 8601, the
 * breakdown as JSON, tags and flags as lists; the breakdown, flags and the log's turn count are
 * left out when the store has none. Every other field of LINE_FIELDS is written as stored, in the
 * line's order, so a field added to the record and the line is exported without a change here.
 */
const LINE_FORM: { [K in keyof typeof LINE_FIELDS]?: (v: Episode[K]) => unknown } = {
  breakdown: parseJson,
  startedAt: (v) => v.toISOString(),
  firstActionAt: iso,
  endedAt: iso,
  tags: (v) => (v ? words(v) : []),
  flags: (v) => (v ? words(v) : undefined),
  turnsTaken: (v) => (v === null ? undefined : v),
};

/** One stored episode as a line of the project's JSONL format. */
export function toJsonlEpisode(e: Episode & { turns: Turn[]; messages?: TranscriptMessage[]; recording?: Recording }): JsonlEpisode {
  const line: Record<string, unknown> = { format: "icstudio.episode", version: EPISODE_FORMAT_VERSION };
  for (const k of Object.keys(LINE_FIELDS) as (keyof typeof LINE_FIELDS)[]) {
    const form = LINE_FORM[k] as ((v: unknown) => unknown) | undefined;
    const v = form ? form(e[k]) : e[k];
    if (v !== undefined) line[k] = v;
  }
  return {
    ...(line as Omit<JsonlEpisode, "turns" | "messages" | "recording">),
    turns: e.turns.map(jsonlTurn),
    ...(e.messages?.length
      ? { messages: e.messages.map(({ seq, turnIndex, role, content, droppedTurns }) => ({ seq, turnIndex, role, content, droppedTurns })) }
      : {}),
    ...(e.recording?.chunks.length
      ? {
          recording: {
            truncated: e.recording.truncated,
            cols: e.recording.cols,
            rows: e.recording.rows,
            chunks: e.recording.chunks.map(({ seq, turnIndex, startedAt, events }) => ({ seq, turnIndex, startedAt, events })),
          },
        }
      : {}),
  };
}

/** One stored episode as a record of InterCode's results format. */
export function toInterCodeRecord(e: Episode & { turns: Turn[] }): Record<string, unknown> {
  const rewards = e.turns.map((t) => t.reward);
  const reward = e.reward ?? 0;
  let maxIdx = e.turns.length ? e.turns.length - 1 : 0;
  if (e.success && e.solvedAtTurn) maxIdx = e.solvedAtTurn - 1;
  else if (rewards.some((r) => r !== null)) maxIdx = rewards.reduce<number>((best, r, i) => ((r ?? -1) > (rewards[best] ?? -1) ? i : best), 0);
  const info: Record<string, unknown> = {};
  if (e.breakdown !== null) info.reward = parseJson(e.breakdown);
  if (e.agentObservation !== null) info.agent_obs = e.agentObservation;
  if (e.goldObservation !== null) info.eval_obs = e.goldObservation;
  return {
    environment: `ic_${e.environment}`,
    dataset: e.dataset,
    task_id: /^\d+$/.test(e.taskId) ? Number(e.taskId) : e.taskId,
    query: e.query,
    ...(e.gold !== null ? { gold: e.gold } : {}),
    ...(e.hardness !== null ? { hardness: e.hardness } : {}),
    ...(e.db !== null ? { db: e.db } : {}),
    turn_history: {
      actions: e.turns.map((t) => t.action),
      observations: e.turns.map((t) => t.observation),
      rewards,
      valid_action: e.turns.map((t) => t.ok),
    },
    ...(Object.keys(info).length ? { info } : {}),
    summary: { max_reward: reward, max_reward_idx: maxIdx, turns_taken: e.turnsTaken ?? e.turns.length, turns_max: e.turnLimit },
  };
}

/** What an export wrote. */
export interface ExportSummary {
  episodes: number;
  /** InterCode format only: records whose task index was already used got a suffixed key. */
  renamedKeys: number;
}

/**
 * Streams the episodes matching `filters` to `write`: JSONL one episode per line, or one
 * InterCode results object (keyed by task index, as InterCode's files are; that format holds
 * one episode per task, so a second episode of a task gets the key `<index>_<n>`).
 */
export async function exportEpisodes({
  filters = {},
  format,
  write,
  skip,
}: {
  filters?: EpisodeFilters;
  format: ExportFormat;
  write: (chunk: string) => void | Promise<void>;
  /** Episodes to leave out (the server leaves out tasks sealed by a baseline episode). */
  skip?: (e: { environment: string; dataset: string; taskId: string }) => boolean;
}): Promise<ExportSummary> {
  let episodes = 0;
  let renamedKeys = 0;
  if (format === "jsonl") {
    for await (const e of iterateEpisodesWithTurns({ filters })) {
      if (skip?.(e)) continue;
      await write(JSON.stringify(toJsonlEpisode(e)) + "\n");
      episodes++;
    }
    return { episodes, renamedKeys };
  }
  const used = new Map<string, number>();
  await write("{");
  for await (const e of iterateEpisodesWithTurns({ filters })) {
    if (skip?.(e)) continue;
    let key = String(e.taskIndex ?? e.taskId);
    const n = (used.get(key) ?? 0) + 1;
    used.set(key, n);
    if (n > 1) {
      key = `${key}_${n}`;
      renamedKeys++;
    }
    await write(`${episodes ? "," : ""}\n  ${JSON.stringify(key)}: ${JSON.stringify(toInterCodeRecord(e))}`);
    episodes++;
  }
  await write(episodes ? "\n}\n" : "}\n");
  return { episodes, renamedKeys };
}
