"use client";

import type { SubmittedPayload } from "@/lib/ws/protocol";

type Breakdown = SubmittedPayload["breakdown"];

function num(v: unknown): string {
  return typeof v === "number" ? v.toFixed(2) : v === null ? "n/a" : String(v ?? "");
}

/** After submit: the reward and its breakdown, then the gold solution and its output beside the player's. */
export function ResultPanel({ result }: { env: string; result: SubmittedPayload }) {
  const solved = result.reward >= 1;
  return (
    <section className="max-h-[55%] overflow-auto border-b border-zinc-800 p-2 text-xs" aria-label="result">
      <div className="flex items-baseline gap-3">
        <span data-testid="reward" data-reward={result.reward} className={`text-lg font-semibold ${solved ? "text-emerald-400" : "text-amber-400"}`}>
          reward {result.reward.toFixed(2)}
        </span>
        <BreakdownView b={result.breakdown} />
      </div>
      <div className="mt-2 grid grid-cols-2 gap-2" data-testid="gold">
        <div>
          <h4 className="mb-1 font-semibold text-zinc-400">Gold solution</h4>
          <pre className="whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono text-emerald-300">{result.gold}</pre>
          <h4 className="mb-1 mt-2 font-semibold text-zinc-400">Gold output</h4>
          <pre className="max-h-48 overflow-auto whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono">{result.goldObservation}</pre>
        </div>
        <div>
          <h4 className="mb-1 font-semibold text-zinc-400">Your answer, as scored</h4>
          <pre className="max-h-72 overflow-auto whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono" data-testid="agent-output">
            {result.agentObservation}
          </pre>
        </div>
      </div>
    </section>
  );
}

function BreakdownView({ b }: { b: Breakdown }) {
  const r = b as Record<string, unknown>;
  switch (b.kind) {
    case "bash":
      return (
        <span className="text-zinc-300" data-testid="breakdown">
          file changes {num(r.fileChanges)} · file contents {num(r.fileContents)} · output {num(r.output)}
          {(["missing", "extra", "wrong"] as const).map((k) =>
            Array.isArray(r[k]) && (r[k] as string[]).length ? (
              <span key={k} className="ml-2 text-amber-300">
                {k}: {(r[k] as string[]).join(", ")}
              </span>
            ) : null,
          )}
        </span>
      );
    case "sql":
      return (
        <span className="text-zinc-300" data-testid="breakdown">
          overlap {num(r.overlap)} · order {num(r.order)}
          {typeof r.error === "string" && <span className="ml-2 text-red-400">{r.error}</span>}
        </span>
      );
    case "python": {
      const tests = (r.tests as { test: string; agent: string; gold: string; agree: boolean; detail?: string }[]) ?? [];
      return (
        <span className="text-zinc-300" data-testid="breakdown">
          {tests.filter((t) => t.agree).length} / {tests.length} tests agree with gold
          {typeof r.error === "string" && <span className="ml-2 text-red-400">{r.error}</span>}
          <ul className="mt-1 space-y-0.5 font-mono">
            {tests.map((t, i) => (
              <li key={i} className={t.agree ? "text-emerald-400" : "text-red-400"}>
                {t.agree ? "✓" : "✗"} {t.test} <span className="text-zinc-500">({t.agent}{t.detail ? `: ${t.detail}` : ""})</span>
              </li>
            ))}
          </ul>
        </span>
      );
    }
    case "ctf":
      return (
        <span className="text-zinc-300" data-testid="breakdown">
          flag {r.match ? "matches" : "does not match"}
        </span>
      );
  }
}
