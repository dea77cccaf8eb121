"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { LazyRewardCurve } from "@/components/charts/lazy-reward-curve";
import type { ReplayHeader, TurnWindow, WindowTurn } from "@/lib/db/episode-rows";
import { playerLabel } from "@/lib/viewer/player";
import { COMPARE_CUT, WINDOW_TURNS } from "@/lib/db/replay-window";
import { AnsiOutput } from "./ansi-output";
import { Highlight } from "./highlight";
import { TurnActor } from "./turn-actor";
import { sendJson } from "./use-author";

const turnsUrl = (id: string, q: Record<string, number>) =>
  `/api/episodes/${encodeURIComponent(id)}/turns?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`;

/** A cell's output, cut by the server; "show all" fetches the whole of it. */
function CellOutput({ episodeId, position, turn }: { episodeId: string; position: number; turn: WindowTurn }) {
  const [whole, setWhole] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const cut = whole === null && turn.observation.length < turn.observationChars;
  return (
    <>
      <AnsiOutput text={whole ?? turn.observation} className="mt-1 max-h-40" limit={whole === null ? undefined : Infinity} />
      {cut && (
        <button
          type="button"
          className="mt-1 block rounded bg-zinc-800 px-2 py-0.5 text-xs text-zinc-200 hover:bg-zinc-700"
          data-testid="show-all"
          onClick={() =>
            sendJson<TurnWindow>(turnsUrl(episodeId, { from: position, limit: 1, full: 1 }), "GET")
              .then((w) => setWhole(w.turns[0]?.observation ?? ""))
              .catch((err: Error) => setError(err.message))
          }
        >
          show all ({turn.observationChars.toLocaleString("en-US")} characters)
        </button>
      )}
      {error && (
        <p className="text-red-400" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * Episodes of one task side by side, aligned by turn, with their reward curves on one chart (the
 * store's aggregate; a turn without a recorded reward shows its would-be reward when the replay page
 * has computed it: `wouldBe`, by episode id and turn index). Each turn says who played it and
 * through what. The page gives each episode's first window of turns; "next turns" fetches the next
 * page of every column from /api/episodes/:id/turns.
 */
export function CompareView({
  episodes,
  wouldBe: firstWouldBe = {},
  wouldBeCurves = {},
}: {
  episodes: ReplayHeader[];
  /** Would-be rewards of the turns the page gives, by episode id and turn index. */
  wouldBe?: Record<string, Record<number, number | null>>;
  /** The replayed would-be rewards aggregated as each episode's curve is (the store's aggregate), by episode id. */
  wouldBeCurves?: Record<string, { turn: number; reward: number | null }[]>;
}) {
  const [turns, setTurns] = useState<Record<string, WindowTurn[]>>(() => Object.fromEntries(episodes.map((d) => [d.episode.id, d.window.turns])));
  const [wouldBe, setWouldBe] = useState(firstWouldBe);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rewardOf = (d: ReplayHeader, t: WindowTurn) => t.reward ?? wouldBe[d.episode.id]?.[t.index] ?? null;
  const total = Math.max(0, ...episodes.map((d) => d.turnCount));
  const rows = Math.max(0, ...episodes.map((d) => turns[d.episode.id]?.length ?? 0));
  const cols = { gridTemplateColumns: `3rem repeat(${episodes.length}, minmax(0, 1fr))` };
  const series = useMemo(
    () =>
      episodes.map((d) => {
        const filled = new Map((wouldBeCurves[d.episode.id] ?? []).map((p) => [p.turn, p.reward]));
        return {
          name: playerLabel(d.episode),
          turns: d.curve.points.map((p) => p.turn),
          rewards: d.curve.points.map((p) => p.reward ?? filled.get(p.turn) ?? null),
        };
      }),
    [episodes, wouldBeCurves],
  );
  const more = async () => {
    setLoading(true);
    setError(null);
    try {
      const next = { ...turns };
      const nextWouldBe = { ...wouldBe };
      for (const d of episodes) {
        const have = next[d.episode.id]?.length ?? 0;
        if (have >= d.turnCount) continue;
        const w = await sendJson<TurnWindow & { wouldBe?: Record<number, number | null> }>(
          turnsUrl(d.episode.id, { from: have, limit: WINDOW_TURNS, cut: COMPARE_CUT }),
          "GET",
        );
        next[d.episode.id] = [...(next[d.episode.id] ?? []), ...w.turns];
        nextWouldBe[d.episode.id] = { ...nextWouldBe[d.episode.id], ...w.wouldBe };
      }
      setTurns(next);
      setWouldBe(nextWouldBe);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  };
  return (
    <div className="space-y-3" data-testid="compare">
      <LazyRewardCurve series={series} height={200} />
      <div className="grid gap-2 text-xs" style={cols}>
        <div />
        {episodes.map((d) => (
          <div key={d.episode.id} className="rounded border border-zinc-800 p-2" data-testid="compare-column">
            <Link href={`/episodes/${d.episode.id}`} className="font-semibold text-sky-400 underline">
              {playerLabel(d.episode)}
            </Link>
            <div className="text-zinc-400">
              {d.episode.status} · reward {d.episode.reward === null ? "–" : d.episode.reward.toFixed(2)} · {d.turnCount} turns
              {d.episode.success ? " · solved" : ""}
            </div>
          </div>
        ))}
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="contents" data-testid="compare-row">
            <div className="pt-2 text-right text-zinc-400">#{i + 1}</div>
            {episodes.map((d) => {
              const t = turns[d.episode.id]?.[i];
              return (
                <div
                  key={d.episode.id}
                  className={`min-w-0 rounded border p-2 ${t ? (t.ok === false ? "border-red-900" : "border-zinc-800") : "border-transparent"}`}
                >
                  {t ? (
                    <>
                      <div className="mb-1 flex flex-wrap gap-x-2 text-zinc-400">
                        <span>{t.ok === null ? "?" : t.ok ? "ok" : "invalid"}</span>
                        <TurnActor turn={t} playerKind={d.episode.playerKind} />
                        <span>
                          {t.reward === null && rewardOf(d, t) !== null ? "would be" : "reward"} {rewardOf(d, t) === null ? "–" : rewardOf(d, t)!.toFixed(2)}
                        </span>
                      </div>
                      <Highlight code={t.action} env={d.episode.environment} />
                      <CellOutput episodeId={d.episode.id} position={i} turn={t} />
                    </>
                  ) : null}
                </div>
              );
            })}
          </div>
        ))}
      </div>
      {rows < total && (
        <p className="flex items-center gap-2 text-xs text-zinc-400">
          turns 1–{rows} of {total}
          <button
            type="button"
            className="rounded bg-zinc-800 px-2 py-0.5 text-zinc-200 hover:bg-zinc-700"
            onClick={() => void more()}
            disabled={loading}
            data-testid="compare-more"
          >
            {loading ? "loading…" : `next ${WINDOW_TURNS} turns`}
          </button>
        </p>
      )}
      {error && (
        <p className="text-xs text-red-400" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
