import "server-only";
import { listTurnReplaysByEpisode, putTurnReplays, type TurnReplayRow } from "@/lib/db/turn-replays";
import type { ReplayData } from "@/lib/db/episode-rows";
import { scoredAt } from "@/lib/env/profiles";
import { createViewerEnvironment, replayLoopForEpisode, taskForEpisode } from "./episode-task";
import { getGoldOutput } from "./gold-output";
import { checkEpisodeReplay, normalizeObservation, unwrapRowList } from "./replay-check";
import type { TurnScore, TurnScores } from "@/lib/viewer/view-types";

const inflight = new Map<string, Promise<TurnReplayRow[]>>();

/** Replays the episode's actions in a fresh sandbox, scoring after every turn; caches a complete replay. */
function replayTurns(data: ReplayData): Promise<TurnReplayRow[]> {
  const id = data.episode.id;
  let p = inflight.get(id);
  if (!p) {
    p = (async () => {
      try {
        const task = taskForEpisode(data.episode);
        // With the loop that recorded it (as a recheck replays it): ReAct's `execute[...]` runs the code it wraps.
        const loop = replayLoopForEpisode(data.episode);
        const env = await createViewerEnvironment(task.env, undefined, loop.profile);
        const check = await checkEpisodeReplay({ task, turns: data.turns, finalReward: data.episode.reward, env, loop, scoreEvery: true });
        if (check.error) throw new Error(`the replay stopped at turn ${check.turns.length + 1}: ${check.error}`);
        const rows = check.turns.map((t) => ({ index: t.index, reward: t.replayedReward, agrees: t.observationAgrees, columns: t.columns ?? null }));
        // Turns after a submit are not replayed; only a replay of every turn is kept.
        if (rows.length === data.turns.length) await putTurnReplays({ episodeId: id, turns: rows });
        return rows;
      } finally {
        inflight.delete(id);
      }
    })();
    inflight.set(id, p);
  }
  return p;
}

/**
 * The score of every turn of an episode: its would-be reward (the recorded one, else computed on
 * demand by replaying the actions in a fresh sandbox and evaluating after each turn, cached in the
 * store), whether its output equals gold's, and for SQL the column names the engine gave (a SQL
 * episode is replayed once for them even when it recorded every reward).
 */
export async function getTurnScores(data: ReplayData): Promise<TurnScores> {
  const errors: string[] = [];
  let goldOut: string | null = data.episode.goldObservation;
  try {
    goldOut = (await getGoldOutput(taskForEpisode(data.episode))).observation;
  } catch (err) {
    if (goldOut === null) errors.push(`gold's output: ${(err as Error).message}`);
  }
  // The loop's own scores only (profile table, `scoredAt`): under `submit-only` (ReAct) a turn
  // that is not the submit was never scored, and the 0 its log holds there is no reward.
  const submitOnly = scoredAt(replayLoopForEpisode(data.episode).profile, data.episode.policy) === "submit-only";
  const last = data.turns.length - 1;
  const recorded = (t: ReplayData["turns"][number], i: number) => (submitOnly && i !== last && !/^\s*submit\b/.test(t.action) ? null : t.reward);
  // A replay is needed for the rewards a recording lacks, and for SQL also for the engine's column names.
  const sql = data.episode.environment === "sql";
  const needed = data.turns.some((t, i) => recorded(t, i) === null);
  let replay = needed || sql ? await listTurnReplaysByEpisode({ episodeId: data.episode.id }) : [];
  let source: TurnScores["source"] = needed ? "cached" : "recorded";
  if ((needed || sql) && replay.length < data.turns.length) {
    try {
      replay = await replayTurns(data);
      if (needed) source = "replayed";
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  const byIndex = new Map(replay.map((r) => [r.index, r]));
  // An empty gold output says nothing for bash, Python and CTF (many actions print nothing); for SQL it is "no rows".
  // SQL rows compare in one form: InterCode's model logs hold str() of the row list.
  const norm = (x: string) => normalizeObservation(data.episode.environment === "sql" ? unwrapRowList(x) : x);
  const gold = goldOut === null ? null : norm(goldOut);
  const comparable = gold !== null && (gold !== "" || data.episode.environment === "sql");
  const turns = data.turns.map((t, i): TurnScore => {
    const r = byIndex.get(t.index);
    const own = recorded(t, i);
    const reward = own ?? r?.reward ?? null;
    return {
      index: t.index,
      reward,
      rewardFrom: own !== null ? "recorded" : reward !== null ? "replay" : null,
      matchesGold: comparable ? norm(t.observation) === gold : null,
      replayAgrees: r ? r.agrees : null,
      columns: r?.columns ?? null,
    };
  });
  return { turns, source, ...(errors.length ? { error: errors.join("; ") } : {}) };
}
