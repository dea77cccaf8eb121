"use client";

import { useEffect, useState } from "react";
import type { GoldOutput } from "@/lib/viewer/gold";
import { AnsiOutput } from "./ansi-output";
import { Highlight } from "./highlight";
import { LineDiff } from "./line-diff";
import { sendJson } from "./use-author";

type Breakdown = Record<string, unknown> | null;

function FileChanges({ b }: { b: Breakdown }) {
  if (!b) return null;
  // Ours: {kind: "bash", missing, extra, wrong}; InterCode's logs: info.diff_miss / diff_extra.
  const lists: [string, unknown][] = [
    ["missing (gold changed, player did not)", b.missing ?? b.diff_miss],
    ["extra (player changed, gold did not)", b.extra ?? b.diff_extra],
    ["wrong contents", b.wrong],
  ];
  const shown = lists.filter(([, v]) => Array.isArray(v));
  if (!shown.length) return null;
  return (
    <div className="space-y-1 text-xs" data-testid="file-changes">
      {shown.map(([label, v]) => (
        <div key={label}>
          <span className="text-zinc-400">{label}: </span>
          {(v as string[]).length ? (v as string[]).map((p) => <code key={p} className="mr-2 text-amber-300">{p}</code>) : <span className="text-zinc-600">none</span>}
        </div>
      ))}
    </div>
  );
}

function BreakdownTable({ b }: { b: Breakdown }) {
  if (!b || typeof b !== "object") return <p className="text-xs text-zinc-600">no breakdown recorded</p>;
  const rows = Object.entries(b).filter(([, v]) => typeof v === "number" || typeof v === "string" || typeof v === "boolean" || v === null);
  const nested = Object.entries(b).filter(([, v]) => v && typeof v === "object" && !Array.isArray(v)) as [string, Record<string, unknown>][];
  return (
    <table className="text-xs" data-testid="breakdown">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <td className="pr-3 text-zinc-400">{k}</td>
            <td className="font-mono">{String(v)}</td>
          </tr>
        ))}
        {nested.flatMap(([k, o]) =>
          Object.entries(o).map(([k2, v]) => (
            <tr key={`${k}.${k2}`}>
              <td className="pr-3 text-zinc-400">{k}.{k2}</td>
              <td className="font-mono">{typeof v === "object" ? JSON.stringify(v) : String(v)}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** Gold's solution and output beside the replay (computed on demand, cached), the breakdown and the diff. */
export function GoldPanel({
  episodeId,
  env,
  breakdown,
  recordedGold,
  recordedGoldObservation,
  playerOutput,
}: {
  episodeId: string;
  env: string;
  breakdown: unknown;
  recordedGold: string | null;
  recordedGoldObservation: string | null;
  playerOutput: string;
}) {
  const [gold, setGold] = useState<GoldOutput | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const load = async () => {
    setLoading(true);
    setError(null);
    try {
      setGold(await sendJson<GoldOutput>(`/api/episodes/${encodeURIComponent(episodeId)}/gold`, "POST"));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [episodeId]);
  const source = gold?.gold ?? recordedGold;
  const goldOut = gold?.observation ?? recordedGoldObservation;
  const b = (breakdown && typeof breakdown === "object" ? breakdown : null) as Breakdown;
  const ourBreakdown = (gold?.details?.breakdown ?? null) as Breakdown;
  return (
    <section className="space-y-3" data-testid="gold-panel">
      <div>
        <h3 className="mb-1 text-xs font-semibold text-zinc-300">Gold solution</h3>
        {source ? <div className="rounded bg-zinc-900 p-2" data-testid="gold-source"><Highlight code={source} env={env} /></div> : <p className="text-xs text-zinc-600">unknown</p>}
      </div>
      <div>
        <h3 className="mb-1 flex items-center gap-2 text-xs font-semibold text-zinc-300">
          Gold output {gold ? <span className="font-normal text-zinc-500">({gold.cached ? "cached" : "just run in a fresh sandbox"})</span> : null}
          {loading && <span className="font-normal text-zinc-500">running gold in a fresh sandbox…</span>}
        </h3>
        {goldOut !== null && goldOut !== undefined ? <AnsiOutput text={goldOut} className="max-h-48" testId="gold-output" /> : !loading && <p className="text-xs text-zinc-600">not available</p>}
        {error && (
          <p className="text-xs text-red-400">
            {error} <button className="underline" onClick={() => void load()}>retry</button>
          </p>
        )}
      </div>
      <div>
        <h3 className="mb-1 text-xs font-semibold text-zinc-300">Reward breakdown</h3>
        <BreakdownTable b={b} />
        {env === "bash" && <FileChanges b={b} />}
      </div>
      {goldOut !== null && goldOut !== undefined && (
        <div>
          <h3 className="mb-1 text-xs font-semibold text-zinc-300">Player&apos;s last output against gold&apos;s</h3>
          <LineDiff player={playerOutput} gold={goldOut} />
        </div>
      )}
      {ourBreakdown && env === "bash" && !b && <FileChanges b={ourBreakdown} />}
    </section>
  );
}
