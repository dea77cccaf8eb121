"use client";

import Link from "next/link";
import { LazyRewardCurve } from "@/components/charts/lazy-reward-curve";
import type { ReplayData } from "@/lib/db/episode-rows";
import { playerLabel } from "@/lib/viewer/player";
import { AnsiOutput } from "./ansi-output";
import { Highlight } from "./highlight";
import { TurnActor } from "./turn-actor";

/**
 * Episodes of one task side by side, aligned by turn, with their reward curves on one chart (a
 * turn without a recorded reward shows its would-be reward when the replay page has computed it:
 * `wouldBe`, by episode id and turn index). Each turn says who played it and through what.
 */
export function CompareView({ episodes, wouldBe = {} }: { episodes: ReplayData[]; wouldBe?: Record<string, Record<number, number | null>> }) {
  const rewardOf = (d: ReplayData, t: ReplayData["turns"][number]) => t.reward ?? wouldBe[d.episode.id]?.[t.index] ?? null;
  const rows = Math.max(0, ...episodes.map((d) => d.turns.length));
  const cols = { gridTemplateColumns: `3rem repeat(${episodes.length}, minmax(0, 1fr))` };
  return (
    <div className="space-y-3" data-testid="compare">
      <LazyRewardCurve series={episodes.map((d) => ({ name: playerLabel(d.episode), rewards: d.turns.map((t) => rewardOf(d, t)) }))} height={200} />
      <div className="grid gap-2 text-xs" style={cols}>
        <div />
        {episodes.map((d) => (
          <div key={d.episode.id} className="rounded border border-zinc-800 p-2" data-testid="compare-column">
            <Link href={`/episodes/${d.episode.id}`} className="font-semibold text-sky-400 underline">{playerLabel(d.episode)}</Link>
            <div className="text-zinc-400">
              {d.episode.status} · reward {d.episode.reward === null ? "–" : d.episode.reward.toFixed(2)} · {d.turns.length} turns{d.episode.success ? " · solved" : ""}
            </div>
          </div>
        ))}
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="contents" data-testid="compare-row">
            <div className="pt-2 text-right text-zinc-400">#{i + 1}</div>
            {episodes.map((d) => {
              const t = d.turns[i];
              return (
                <div key={d.episode.id} className={`min-w-0 rounded border p-2 ${t ? (t.ok === false ? "border-red-900" : "border-zinc-800") : "border-transparent"}`}>
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
                      <AnsiOutput text={t.observation} className="mt-1 max-h-40" />
                    </>
                  ) : null}
                </div>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
