"use client";

import { BreakdownPartList } from "@/components/ui/breakdown-parts";
import type { SubmittedPayload } from "@/lib/live/events";
import { breakdownParts } from "@/lib/reward/explain";
import { CheckIcon, CrossIcon } from "@/components/ui/icons";

type Breakdown = SubmittedPayload["breakdown"];
type PythonTest = { test: string; agent: string; gold: string; agree: boolean; detail?: string };

/** After submit: the reward and its breakdown in words, then the gold solution and its output beside the player's. */
export function ResultPanel({ result }: { env: string; result: SubmittedPayload }) {
  const solved = result.reward >= 1;
  // A study's participant hears only what its feedback setting allows: perhaps nothing, perhaps the gold.
  if (result.hidden || (!result.gold && !result.goldObservation && !result.agentObservation)) {
    return (
      <section className="max-h-[55%] overflow-auto border-b border-zinc-800 p-2 text-xs" aria-label="result" tabIndex={0} data-testid="result-limited">
        {result.hidden ? (
          <p className="text-sm text-zinc-200" data-testid="reward-hidden">
            Submitted. This study does not show scores.
          </p>
        ) : (
          <span data-testid="reward" data-reward={result.reward} className={`text-lg font-semibold ${solved ? "text-emerald-400" : "text-amber-300"}`}>
            reward {result.reward.toFixed(2)}
          </span>
        )}
        {result.gold && (
          <div className="mt-2" data-testid="gold">
            <h4 className="mb-1 font-semibold text-zinc-300">Gold solution</h4>
            <pre className="whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono text-emerald-300">{result.gold}</pre>
          </div>
        )}
      </section>
    );
  }
  return (
    <section className="max-h-[55%] overflow-auto border-b border-zinc-800 p-2 text-xs" aria-label="result" tabIndex={0}>
      <div className="flex items-baseline gap-3">
        <span data-testid="reward" data-reward={result.reward} className={`text-lg font-semibold ${solved ? "text-emerald-400" : "text-amber-300"}`}>
          reward {result.reward.toFixed(2)}
        </span>
      </div>
      <BreakdownView b={result.breakdown} />
      <div className="mt-2 grid grid-cols-2 gap-2" data-testid="gold">
        <div>
          <h4 className="mb-1 font-semibold text-zinc-300">Gold solution</h4>
          <pre className="whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono text-emerald-300">{result.gold}</pre>
          <h4 className="mb-1 mt-2 font-semibold text-zinc-300">Gold output</h4>
          <pre className="max-h-48 overflow-auto whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono" tabIndex={0}>
            {result.goldObservation}
          </pre>
        </div>
        <div>
          <h4 className="mb-1 font-semibold text-zinc-300">Your answer, as scored</h4>
          <pre className="max-h-72 overflow-auto whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono" data-testid="agent-output" tabIndex={0}>
            {result.agentObservation}
          </pre>
        </div>
      </div>
    </section>
  );
}

function BreakdownView({ b }: { b: Breakdown }) {
  const r = b as Record<string, unknown> & { kind: string };
  const parts = breakdownParts(r);
  const tests = b.kind === "python" && Array.isArray(r.tests) ? (r.tests as PythonTest[]) : [];
  return (
    <div className="mt-1 text-zinc-200" data-testid="breakdown">
      <BreakdownPartList parts={parts} />
      {b.kind === "bash" &&
        (["missing", "extra", "wrong"] as const).map((k) =>
          Array.isArray(r[k]) && (r[k] as string[]).length ? (
            <p key={k} className="text-amber-300">
              {k === "missing" ? "changed by gold only" : k === "extra" ? "changed by you only" : "contents differ from gold's"}:{" "}
              <span className="font-mono">{(r[k] as string[]).join(", ")}</span>
            </p>
          ) : null,
        )}
      {typeof r.error === "string" && <p className="text-red-300">{r.error}</p>}
      {tests.length > 0 && (
        <table className="mt-1 border-collapse text-left font-mono" data-testid="python-tests">
          <thead className="font-sans text-zinc-300">
            <tr>
              <th className="pr-2 font-medium">same as gold</th>
              <th className="pr-2 font-medium">yours</th>
              <th className="pr-2 font-medium">gold</th>
              <th className="font-medium">test</th>
            </tr>
          </thead>
          <tbody>
            {tests.map((t, i) => (
              <tr key={i} data-testid="python-test" data-agree={t.agree ? "1" : "0"} className="align-top">
                <td className={`pr-2 ${t.agree ? "text-emerald-400" : "text-red-300"}`}>
                  {t.agree ? <CheckIcon title="same outcome as gold" /> : <CrossIcon title="different outcome from gold" />}
                </td>
                <td className={`pr-2 ${t.agent === "pass" ? "text-emerald-400" : "text-red-300"}`} data-testid="python-test-agent">
                  {t.agent}
                </td>
                <td className="pr-2 text-zinc-300">{t.gold}</td>
                <td>
                  {/* Verbatim: a test's spaces are often the point ('  a   b '). */}
                  <pre className="whitespace-pre text-zinc-100" data-testid="python-test-source">
                    {t.test}
                  </pre>
                  {t.detail && <pre className="whitespace-pre text-zinc-400">{t.detail}</pre>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
