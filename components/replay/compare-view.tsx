"use client";

import Link from "next/link";
import { LazyRewardCurve } from "@/components/charts/lazy-reward-curve";
import type { ReplayData } from "@/lib/db/viewer-queries";
import { AnsiOutput } from "./ansi-output";
import { Highlight } from "./highlight";

const playerOf = (e: ReplayData["episode"]) => e.annotator ?? (e.model ? `${e.model}${e.policy ? ` · ${e.policy}` : ""}` : e.playerKind);

/** Episodes of one task side by side, aligned by turn, with their reward curves on one chart. */
export function CompareView({ episodes }: { episodes: ReplayData[] }) {
  const rows = Math.max(0, ...episodes.map((d) => d.turns.length));
  const cols = { gridTemplateColumns: `3rem repeat(${episodes.length}, minmax(0, 1fr))` };
  return (
    <div className="space-y-3" data-testid="compare">
      <LazyRewardCurve series={episodes.map((d) => ({ name: playerOf(d.episode), rewards: d.turns.map((t) => t.reward) }))} height={200} />
      <div className="grid gap-2 text-xs" style={cols}>
        <div />
        {episodes.map((d) => (
          <div key={d.episode.id} className="rounded border border-zinc-800 p-2" data-testid="compare-column">
            <Link href={`/episodes/${d.episode.id}`} className="font-semibold text-sky-400 underline">{playerOf(d.episode)}</Link>
            <div className="text-zinc-400">
              {d.episode.status} · reward {d.episode.reward === null ? "–" : d.episode.reward.toFixed(2)} · {d.turns.length} turns{d.episode.success ? " · solved" : ""}
            </div>
          </div>
        ))}
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="contents" data-testid="compare-row">
            <div className="pt-2 text-right text-zinc-500">#{i + 1}</div>
            {episodes.map((d) => {
              const t = d.turns[i];
              return (
                <div key={d.episode.id} className={`min-w-0 rounded border p-2 ${t ? (t.ok === false ? "border-red-900" : "border-zinc-800") : "border-transparent"}`}>
                  {t ? (
                    <>
                      <div className="mb-1 text-zinc-500">
                        {t.ok === null ? "?" : t.ok ? "ok" : "invalid"} · reward {t.reward === null ? "–" : t.reward.toFixed(2)}
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
