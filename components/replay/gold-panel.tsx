"use client";

import { BreakdownPartList } from "@/components/ui/breakdown-parts";
import { useCallback, useEffect, useState } from "react";
import { breakdownParts } from "@/lib/reward/explain";
import type { GoldOutput } from "@/lib/viewer/view-types";
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
          {(v as string[]).length ? (
            (v as string[]).map((p) => (
              <code key={p} className="mr-2 text-amber-300">
                {p}
              </code>
            ))
          ) : (
            <span className="text-zinc-400">none</span>
          )}
        </div>
      ))}
    </div>
  );
}

/** A Python breakdown's tests: each test's text verbatim (spaces kept), the player's and gold's outcome. */
function PythonTests({ b }: { b: Breakdown }) {
  const tests = b && Array.isArray(b.tests) ? (b.tests as { test?: unknown; agent?: unknown; gold?: unknown; agree?: unknown; detail?: unknown }[]) : null;
  if (!tests?.length) return null;
  const passed = tests.filter((t) => t.agent === "pass").length;
  return (
    <div className="space-y-1 text-xs" data-testid="python-tests">
      <p className="text-zinc-400">
        {passed} of {tests.length} tests passed · {tests.filter((t) => t.agree === true).length} with gold&apos;s outcome (the reward is that share)
      </p>
      <table className="w-full border-collapse">
        <thead>
          <tr className="text-left text-zinc-400">
            <th scope="col" className="pr-2 font-medium">
              player
            </th>
            <th scope="col" className="pr-2 font-medium">
              gold
            </th>
            <th scope="col" className="font-medium">
              test
            </th>
          </tr>
        </thead>
        <tbody>
          {tests.map((t, i) => (
            <tr key={i} className="align-top" data-testid="python-test" data-outcome={String(t.agent)}>
              <td className={`pr-2 ${t.agent === "pass" ? "text-emerald-400" : "text-red-400"}`}>{String(t.agent)}</td>
              <td className="pr-2 text-zinc-400">{String(t.gold)}</td>
              <td className="min-w-0">
                <pre className="overflow-x-auto whitespace-pre font-mono text-zinc-200" data-testid="python-test-text">
                  {String(t.test)}
                </pre>
                {typeof t.detail === "string" && t.detail && <pre className="overflow-x-auto whitespace-pre font-mono text-red-300">{t.detail}</pre>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RawRows({ b, skip }: { b: Record<string, unknown>; skip: Set<string> }) {
  const rows = Object.entries(b).filter(([k, v]) => !skip.has(k) && (typeof v === "number" || typeof v === "string" || typeof v === "boolean" || v === null));
  const nested = Object.entries(b).filter(([k, v]) => !skip.has(k) && v && typeof v === "object" && !Array.isArray(v)) as [string, Record<string, unknown>][];
  return (
    <>
      {rows.map(([k, v]) => (
        <tr key={k}>
          <td className="pr-3 text-zinc-400">{k}</td>
          <td className="font-mono">{String(v)}</td>
        </tr>
      ))}
      {nested.flatMap(([k, o]) =>
        Object.entries(o).map(([k2, v]) => (
          <tr key={`${k}.${k2}`}>
            <td className="pr-3 text-zinc-400">
              {k}.{k2}
            </td>
            <td className="font-mono">{typeof v === "object" ? JSON.stringify(v) : String(v)}</td>
          </tr>
        )),
      )}
    </>
  );
}

/**
 * The breakdown in words (lib/reward/explain.ts, as the playground shows it) when it is one of
 * the Studio's; an imported log's breakdown (InterCode's info fields) is shown by its own keys.
 * The raw fields stay one click away.
 */
function BreakdownTable({ b }: { b: Breakdown }) {
  if (!b || typeof b !== "object") return <p className="text-xs text-zinc-400">no breakdown recorded</p>;
  const parts = typeof b.kind === "string" ? breakdownParts(b as { kind: string } & Record<string, unknown>) : [];
  if (!parts.length) {
    return (
      <table className="text-xs" data-testid="breakdown">
        <tbody>
          <RawRows b={b} skip={new Set()} />
        </tbody>
      </table>
    );
  }
  return (
    <div className="text-xs" data-testid="breakdown">
      <BreakdownPartList parts={parts} />
      <details className="mt-1">
        <summary className="cursor-pointer text-zinc-400">raw fields</summary>
        <table>
          <tbody>
            <RawRows b={b} skip={new Set(["kind", "tests"])} />
          </tbody>
        </table>
      </details>
    </div>
  );
}

/** The selected turn's output, as the gold panel compares it with gold's. */
export interface ComparedOutput {
  /** 1-based. */
  turn: number;
  output: string;
  matchesGold: boolean | null;
}

/** Gold's solution and output beside the replay (computed on demand, cached), the breakdown and the selected turn's output against gold's. */
export function GoldPanel({
  episodeId,
  env,
  breakdown,
  recordedGold,
  recordedGoldObservation,
  compared,
}: {
  episodeId: string;
  env: string;
  breakdown: unknown;
  recordedGold: string | null;
  recordedGoldObservation: string | null;
  compared: ComparedOutput | null;
}) {
  const [gold, setGold] = useState<GoldOutput | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const load = useCallback(async () => {
    setLoading(true);
    setError(null);
    try {
      setGold(await sendJson<GoldOutput>(`/api/episodes/${encodeURIComponent(episodeId)}/gold`, "POST"));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }, [episodeId]);
  useEffect(() => {
    void load();
  }, [load]);
  const source = gold?.gold ?? recordedGold;
  const goldOut = gold?.observation ?? recordedGoldObservation;
  const b = (breakdown && typeof breakdown === "object" ? breakdown : null) as Breakdown;
  const ourBreakdown = (gold?.details?.breakdown ?? null) as Breakdown;
  return (
    <section className="space-y-3" data-testid="gold-panel">
      <div>
        <h3 className="mb-1 text-xs font-semibold text-zinc-300">Gold solution</h3>
        {source ? (
          <div className="rounded bg-zinc-900 p-2" data-testid="gold-source">
            <Highlight code={source} env={env} />
          </div>
        ) : (
          <p className="text-xs text-zinc-400">unknown</p>
        )}
      </div>
      <div>
        <h3 className="mb-1 flex items-center gap-2 text-xs font-semibold text-zinc-300">
          Gold output {gold ? <span className="font-normal text-zinc-400">({gold.cached ? "cached" : "just run in a fresh sandbox"})</span> : null}
          {loading && <span className="font-normal text-zinc-400">running gold in a fresh sandbox…</span>}
        </h3>
        {goldOut !== null && goldOut !== undefined ? (
          <AnsiOutput text={goldOut} className="max-h-48" testId="gold-output" />
        ) : (
          !loading && <p className="text-xs text-zinc-400">not available</p>
        )}
        {error && (
          <p className="text-xs text-red-400">
            {error}{" "}
            <button type="button" className="underline" onClick={() => void load()}>
              retry
            </button>
          </p>
        )}
      </div>
      <div>
        <h3 className="mb-1 text-xs font-semibold text-zinc-300">Reward breakdown</h3>
        <BreakdownTable b={b} />
        {env === "bash" && <FileChanges b={b} />}
        {env === "python" && <PythonTests b={b} />}
      </div>
      {goldOut !== null && goldOut !== undefined && compared && (
        <div data-testid="turn-vs-gold">
          <h3 className="mb-1 text-xs font-semibold text-zinc-300">Turn {compared.turn}&apos;s output against gold&apos;s</h3>
          {compared.matchesGold && (
            <p className="mb-1 text-xs text-emerald-300" data-testid="turn-equals-gold">
              Turn {compared.turn}&apos;s output equals gold&apos;s{env === "sql" || env === "bash" ? " (a submit right after it scores that output)" : ""}.
            </p>
          )}
          <LineDiff player={compared.output} gold={goldOut} />
        </div>
      )}
      {ourBreakdown && env === "bash" && !b && <FileChanges b={ourBreakdown} />}
    </section>
  );
}
