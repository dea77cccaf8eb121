import "server-only";
import { countTurnScoreGapsByEpisode, listTurnReplayCurveByEpisode, listTurnReplaysByEpisode, putTurnReplays, type TurnReplayRow } from "@/lib/db/turn-replays";
import type { ReplayData, ReplayHeader } from "@/lib/db/episode-rows";
import { getReplayDataById, listTurnWindowByEpisode } from "@/lib/db/viewer-queries";
import { curveBucket, WINDOW_TURNS } from "@/lib/db/replay-window";
import { NotFoundError } from "@/lib/errors";
import { scoredAt } from "@/lib/env/profiles";
import { createViewerEnvironment, replayLoopForEpisode, taskForEpisode } from "./episode-task";
import { getGoldOutput } from "./gold-output";
import { checkEpisodeReplay, normalizeObservation } from "./replay-check";
import { fidelityOfEnv } from "@/lib/env/fidelity";
import type { TurnScore, TurnScores } from "@/lib/viewer/view-types";

const inflight = new Map<string, Promise<TurnReplayRow[]>>();

/**
 * Replays the episode's actions in a fresh sandbox, scoring after every turn; caches a complete
 * replay. The one job here that reads every turn (once an episode: later asks read the cache).
 */
function replayTurns(id: string): Promise<TurnReplayRow[]> {
  let p = inflight.get(id);
  if (!p) {
    p = (async () => {
      try {
        const data: ReplayData | null = await getReplayDataById({ id });
        if (!data) throw new NotFoundError(`episode ${id}`);
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
 * The scores of one page of an episode's turns (`from`, at most `limit`, WINDOW_TURNS by default):
 * each turn's would-be reward (the recorded one, else computed by replaying the actions in a fresh
 * sandbox and evaluating after each turn, once an episode, cached in the store), whether its output
 * equals gold's, and for SQL the column names the engine gave (a SQL episode is replayed once for
 * them even when it recorded every reward). With `curve`, also the replay's would-be rewards
 * aggregated as the reward curve is (the store's aggregate, at most CURVE_POINTS points). Once the
 * replay is cached, what a page costs does not grow with the episode.
 */
export async function getTurnScores({
  header,
  from = 0,
  limit = WINDOW_TURNS,
  curve = false,
}: {
  header: Omit<ReplayHeader, "window" | "curve">;
  from?: number;
  limit?: number;
  curve?: boolean;
}): Promise<TurnScores> {
  const { episode, turnCount } = header;
  const errors: string[] = [];
  let goldOut: string | null = episode.goldObservation;
  try {
    goldOut = (await getGoldOutput(taskForEpisode(episode))).observation;
  } catch (err) {
    if (goldOut === null) errors.push(`gold's output: ${(err as Error).message}`);
  }
  // The loop's own scores only (profile table, `scoredAt`): under `submit-only` (ReAct) a turn
  // that is not the submit was never scored, and the 0 its log holds there is no reward.
  const submitOnly = scoredAt(replayLoopForEpisode(episode).profile, episode.policy) === "submit-only";
  const last = turnCount - 1;
  const recorded = (t: { index: number; action: string; reward: number | null }) =>
    submitOnly && t.index !== last && !/^\s*submit\b/.test(t.action) ? null : t.reward;
  // A replay is needed for the rewards a recording lacks (under submit-only, any turn before the
  // last), and for result sets (SQL) also for the engine's column names.
  const rules = fidelityOfEnv(episode.environment);
  const sql = rules.resultSets;
  const gaps = await countTurnScoreGapsByEpisode({ episodeId: episode.id });
  const needed = gaps.unrewarded > 0 || (submitOnly && turnCount > 1);
  let source: TurnScores["source"] = needed ? "cached" : "recorded";
  let replay: TurnReplayRow[] = [];
  if ((needed || sql) && gaps.replayed < turnCount) {
    try {
      replay = (await replayTurns(episode.id)).filter((r) => r.index >= from && r.index < from + limit);
      if (needed) source = "replayed";
    } catch (err) {
      errors.push((err as Error).message);
    }
  } else if (needed || sql) replay = await listTurnReplaysByEpisode({ episodeId: episode.id, from, limit });
  const page = await listTurnWindowByEpisode({ episodeId: episode.id, from, limit, cut: null });
  const byIndex = new Map(replay.map((r) => [r.index, r]));
  // An empty gold output says nothing for bash, Python and CTF (many actions print nothing); for a result set it is "no rows".
  // SQL rows compare in one form: InterCode's model logs hold str() of the row list.
  const norm = (x: string) => normalizeObservation(rules.comparable(x));
  const gold = goldOut === null ? null : norm(goldOut);
  const comparable = gold !== null && (gold !== "" || sql);
  const turns = page.turns.map((t): TurnScore => {
    const r = byIndex.get(t.index);
    const own = recorded(t);
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
  const replayCurve =
    curve && needed
      ? { bucket: curveBucket(turnCount), points: await listTurnReplayCurveByEpisode({ episodeId: episode.id, bucket: curveBucket(turnCount) }) }
      : undefined;
  return { from, turns, source, ...(replayCurve ? { curve: replayCurve } : {}), ...(errors.length ? { error: errors.join("; ") } : {}) };
}
