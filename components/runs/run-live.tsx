"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { pct, type RunMeasures, type RunView } from "@/lib/runs/view-types";
import { SuccessAtKChart } from "./success-at-k-chart";
import { useRunView } from "./use-run-view";

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}h ${m}m` : m ? `${m}m ${s % 60}s` : `${s}s`;
}

function Stat({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div className="rounded border border-zinc-800 px-3 py-2">
      <div className="text-[10px] uppercase tracking-wide text-zinc-400">{label}</div>
      <div className="font-mono text-sm text-zinc-100" data-testid={testId}>
        {children}
      </div>
    </div>
  );
}

function MeasuresRow({ m }: { m: RunMeasures }) {
  return (
    <tr>
      <td className="pr-4">{m.label}</td>
      <td className="pr-4">{m.episodes}</td>
      <td className="pr-4">{m.solved}</td>
      <td className="pr-4">{pct(m.successRate)}</td>
      <td className="pr-4">{m.meanTurns.toFixed(2)}</td>
      <td>{m.errorRate === null ? "–" : pct(m.errorRate)}</td>
    </tr>
  );
}

const STATUS_COLOUR: Record<string, string> = {
  submitted: "text-zinc-200",
  running: "text-sky-300",
  pending: "text-zinc-400",
  error: "text-red-400",
  interrupted: "text-amber-400",
  abandoned: "text-zinc-400",
};

/**
 * One run, live while it runs (done / total, solved, success rate, errors, tokens and cost,
 * elapsed and remaining; each episode's row as it ends) and its measures once finished.
 */
export function RunLive({ initial, others }: { initial: RunView; others: { id: string; name: string }[] }) {
  const { view: v, refresh } = useRunView(initial);
  const [now, setNow] = useState(() => Date.now());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [other, setOther] = useState(others[0]?.id ?? "");
  useEffect(() => {
    if (!v.live) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [v.live]);

  const act = async (op: "stop" | "resume") => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(`/api/runs/${encodeURIComponent(v.id)}/${op}`, { method: "POST" });
      const json = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      if (!res.ok) throw new Error(json.error?.message ?? `HTTP ${res.status}`);
      await refresh();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const elapsed = v.startedAt === null ? 0 : (v.live ? now : (v.endedAt ?? now)) - v.startedAt;
  const left = v.total - v.done;
  const remaining = v.live && v.doneSinceStart > 0 ? (elapsed / v.doneSinceStart) * left : null;
  const c = v.config;
  const resumable = !v.live && left > 0 && Boolean(c?.taskIds?.length);
  const series = v.overall ? [v.overall, ...v.groups] : [];

  return (
    <div className="space-y-4" data-testid="run-view" data-status={v.status} data-live={v.live ? "1" : "0"}>
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="text-lg font-semibold">{v.name}</h1>
        <span data-testid="run-status" className="rounded bg-zinc-800 px-1.5 py-0.5 font-mono text-xs">
          {v.live ? "running" : v.status === "running" ? "stopped unexpectedly" : v.status}
        </span>
        {c && (
          <span className="text-xs text-zinc-400">
            {c.env} · {c.dataset} · {c.model} · {c.policy} · {c.turns} turns{c.handicap ? " · handicap" : ""}
            {c.concurrency ? ` · ${c.concurrency} at once` : ""}
            {c.profile === "intercode" ? " · intercode profile" : ""}
            {c.launchedFrom === "cli" ? " · started from the command line" : ""}
          </span>
        )}
        <span className="ml-auto flex gap-2">
          {v.here && (
            <Button data-testid="run-stop" variant="danger" disabled={busy} onClick={() => void act("stop")}>
              Stop
            </Button>
          )}
          {v.live && !v.here && (
            // A queued run's owner is "queue <url>#<name>" (lib/db/runs.ts QUEUE_OWNER_PREFIX): its workers play it.
            <span data-testid="run-owner" className="text-xs text-zinc-400">
              {v.owner?.startsWith("queue ") ? `on the ${v.owner}, played by icstudio worker processes` : `running in ${v.owner}; stop it there (Ctrl+C)`}
            </span>
          )}
          {resumable && (
            <Button data-testid="run-resume" variant="primary" disabled={busy} onClick={() => void act("resume")}>
              Resume ({left} left)
            </Button>
          )}
        </span>
      </div>
      {error && (
        <p role="alert" className="text-xs text-red-400">
          {error}
        </p>
      )}

      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-8">
        <Stat label="done" testId="run-progress">
          {v.done} / {v.total}
        </Stat>
        <Stat label="solved" testId="run-solved">
          {v.solved}
        </Stat>
        <Stat label="success rate" testId="run-success-rate">
          {v.done ? pct(v.solved / v.done) : "–"}
        </Stat>
        <Stat label="errors" testId="run-errors">
          {v.errors}
        </Stat>
        <Stat label="tokens in / out">
          {v.tokensIn.toLocaleString("en")} / {v.tokensOut.toLocaleString("en")}
        </Stat>
        <Stat label="est. cost">${v.costUsd.toFixed(4)}</Stat>
        <Stat label="elapsed">{duration(elapsed)}</Stat>
        <Stat label="remaining">{v.live ? (remaining === null ? "…" : `~${duration(remaining)}`) : "–"}</Stat>
      </div>
      <div className="h-1.5 w-full overflow-hidden rounded bg-zinc-800" aria-hidden>
        <div className="h-full bg-emerald-600" style={{ width: `${v.total ? (100 * v.done) / v.total : 0}%` }} />
      </div>

      {v.overall && (
        <section className="grid gap-4 lg:grid-cols-2">
          <div className="space-y-2">
            <h2 className="text-sm font-semibold text-zinc-300">The paper&apos;s measures{v.live ? " so far" : ""}</h2>
            <table className="text-xs" data-testid="run-measures">
              <thead>
                <tr className="text-left text-zinc-400">
                  <th className="pr-4">{v.groupBy === "hardness" ? "hardness" : v.groupBy === "db" ? "file system" : "group"}</th>
                  <th className="pr-4">episodes</th>
                  <th className="pr-4">solved</th>
                  <th className="pr-4">success</th>
                  <th className="pr-4">mean turns</th>
                  <th>error rate</th>
                </tr>
              </thead>
              <tbody>
                <MeasuresRow m={v.overall} />
                {v.groups.map((g) => (
                  <MeasuresRow key={g.label} m={g} />
                ))}
              </tbody>
            </table>
            <p className="text-xs text-zinc-400">
              Export:{" "}
              <a className="text-sky-400 underline" href={`/api/runs/${v.id}/export?format=csv`} download data-testid="run-export-csv">
                CSV (per task)
              </a>
              {" · "}
              <a className="text-sky-400 underline" href={`/api/episodes/export?format=jsonl&run=${v.id}`} download data-testid="run-export-jsonl">
                JSONL (episodes)
              </a>
              {" · "}
              <Link className="text-sky-400 underline" href={`/episodes?run=${v.id}`}>
                in the episode list
              </Link>
            </p>
            {others.length > 0 && (
              <form className="flex items-center gap-2 text-xs" action="/runs/compare">
                <input type="hidden" name="a" value={v.id} />
                <label htmlFor="compare-with" className="text-zinc-400">
                  compare with
                </label>
                <select
                  id="compare-with"
                  name="b"
                  value={other}
                  onChange={(e) => setOther(e.target.value)}
                  className="rounded border border-zinc-700 bg-zinc-900 px-1 text-zinc-100"
                  data-testid="run-compare-with"
                >
                  {others.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.name}
                    </option>
                  ))}
                </select>
                <button type="submit" className="rounded border border-zinc-700 px-2 py-0.5 hover:bg-zinc-800" data-testid="run-compare">
                  Compare
                </button>
              </form>
            )}
          </div>
          <div>
            <h2 className="text-sm font-semibold text-zinc-300">Success within k turns</h2>
            <SuccessAtKChart series={series} />
          </div>
        </section>
      )}

      <section>
        <h2 className="mb-1 text-sm font-semibold text-zinc-300">Tasks</h2>
        <table className="w-full text-xs" data-testid="run-tasks">
          <thead>
            <tr className="text-left text-zinc-400">
              <th className="pr-3">task</th>
              <th className="pr-3">status</th>
              <th className="pr-3">reward</th>
              <th className="pr-3" title="turns as InterCode counts them, as the mean turns does">
                turns
              </th>
              <th className="pr-3">solved at</th>
              {v.groupBy && <th className="pr-3">{v.groupBy === "hardness" ? "hardness" : "file system"}</th>}
              <th className="pr-3">tokens</th>
              <th className="pr-3">cost</th>
              <th>episode</th>
            </tr>
          </thead>
          <tbody>
            {v.tasks.map((t) => (
              <tr
                key={t.taskId}
                data-testid="run-task"
                data-task={t.taskId}
                data-status={t.status}
                data-episode={t.episodeId ?? ""}
                className="border-t border-zinc-900"
              >
                <td className="pr-3 font-mono">{t.taskId}</td>
                <td className={`pr-3 ${STATUS_COLOUR[t.status] ?? ""}`} title={t.errorReason ?? undefined}>
                  {t.status}
                  {t.success ? " ✓" : ""}
                </td>
                <td className="pr-3" data-testid="run-task-reward">
                  {t.sealed ? (
                    <span className="text-amber-300" title="sealed by an open study or a baseline episode">
                      sealed
                    </span>
                  ) : t.reward === null ? (
                    "–"
                  ) : (
                    t.reward.toFixed(2)
                  )}
                </td>
                <td className="pr-3" title={t.storedTurns === undefined ? undefined : `${t.storedTurns} turns stored`}>
                  {t.episodeId ? t.turns : ""}
                </td>
                <td className="pr-3">{t.solvedAtTurn ?? ""}</td>
                {v.groupBy && <td className="pr-3">{t.group ?? ""}</td>}
                <td className="pr-3">{t.episodeId ? t.tokensIn + t.tokensOut : ""}</td>
                <td className="pr-3">{t.episodeId ? `$${t.costUsd.toFixed(4)}` : ""}</td>
                <td>
                  {t.watchHref ? (
                    <Link className="text-sky-400 underline" href={t.watchHref} data-testid="run-watch">
                      watch live
                    </Link>
                  ) : t.episodeId ? (
                    <Link className="text-sky-400 underline" href={`/episodes/${t.episodeId}`}>
                      replay
                    </Link>
                  ) : null}
                  {t.status === "error" && t.errorReason && <span className="ml-2 text-red-400">{t.errorReason.slice(0, 120)}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
