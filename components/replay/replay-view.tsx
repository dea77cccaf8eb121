"use client";

import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { LazyRewardCurve } from "@/components/charts/lazy-reward-curve";
import type { ReplayData } from "@/lib/db/episode-rows";
import { playerLabel } from "@/lib/viewer/player";
import type { EpisodeCheck, TurnScores } from "@/lib/viewer/view-types";
import { AnnotationsPanel } from "./annotations-panel";
import { AnsiOutput } from "./ansi-output";
import { EpisodeFailure } from "./episode-failure";
import { GoldPanel } from "./gold-panel";
import { Highlight } from "./highlight";
import { SqlResult, type SqlResultView } from "./sql-result";
import { TurnActor } from "./turn-actor";
import { RecordingPlayer } from "./recording-player";
import { TurnTranscript } from "./turn-transcript";
import { sendJson, useAuthor } from "./use-author";
import { FlagChips } from "@/components/episodes/flag-chips";
import { isSubmit } from "@/lib/env/submit";

const SPEEDS = [0.5, 1, 2, 4] as const;

const fmtReward = (r: number | null) => (r === null ? "–" : r.toFixed(2));

/**
 * One episode's replay: the timeline of turns (step with buttons or j/k and arrow keys, Home/End,
 * play at a speed, click to jump; the selected turn is `?turn=N` in the URL), gold beside it with
 * the selected turn's output against gold's, the reward curve of every turn's would-be reward (the
 * recorded one, else replayed in a sandbox on the server and cached), tags and notes, the replay
 * check and "continue from turn k".
 */
export function ReplayView({ initial, initialTurn }: { initial: ReplayData; initialTurn?: number }) {
  const [data, setData] = useState(initial);
  const { episode: ep, turns } = data;
  const [current, setCurrent] = useState(turns.length ? Math.max(0, Math.min(turns.length - 1, (initialTurn ?? 1) - 1)) : -1);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const [check, setCheck] = useState<EpisodeCheck | null>(null);
  const [checking, setChecking] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [scores, setScores] = useState<TurnScores | null>(null);
  const [scoring, setScoring] = useState(false);
  const [sqlView, setSqlView] = useState<SqlResultView>("table");
  const [author] = useAuthor();
  const listRef = useRef<HTMLOListElement>(null);

  const step = useCallback((d: number) => setCurrent((c) => Math.max(0, Math.min(turns.length - 1, c + d))), [turns.length]);
  const jump = useCallback((i: number) => setCurrent(Math.max(0, Math.min(turns.length - 1, i))), [turns.length]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
      if (e.key === "j" || e.key === "ArrowDown" || e.key === "ArrowRight") {
        e.preventDefault();
        step(1);
      } else if (e.key === "k" || e.key === "ArrowUp" || e.key === "ArrowLeft") {
        e.preventDefault();
        step(-1);
      } else if (e.key === "Home") {
        e.preventDefault();
        jump(0);
      } else if (e.key === "End") {
        e.preventDefault();
        jump(turns.length - 1);
      } else if (e.key === " ") {
        e.preventDefault();
        setPlaying((p) => !p);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, jump, turns.length]);

  // The selected turn lives in the URL (1-based), so a link or a reload opens the same turn.
  useEffect(() => {
    if (current < 0) return;
    const url = new URL(window.location.href);
    if (url.searchParams.get("turn") === String(current + 1)) return;
    url.searchParams.set("turn", String(current + 1));
    window.history.replaceState(window.history.state, "", url);
  }, [current]);

  // Every turn's would-be reward, whether its output is gold's, and SQL column names.
  useEffect(() => {
    if (!turns.length) return;
    let live = true;
    setScoring(true);
    sendJson<TurnScores>(`/api/episodes/${encodeURIComponent(ep.id)}/turn-scores`, "POST")
      .then((r) => live && setScores(r))
      .catch((err: Error) => live && setScores({ turns: [], source: "recorded", error: err.message }))
      .finally(() => live && setScoring(false));
    return () => {
      live = false;
    };
  }, [ep.id, turns.length]);

  useEffect(() => {
    if (!playing) return;
    if (current >= turns.length - 1) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => step(1), 1000 / speed);
    return () => clearTimeout(t);
  }, [playing, current, speed, step, turns.length]);

  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${current}"]`)?.scrollIntoView({ block: "nearest" });
  }, [current]);

  const refresh = useCallback(async () => {
    setData(await sendJson<ReplayData>(`/api/episodes/${encodeURIComponent(ep.id)}`, "GET"));
  }, [ep.id]);

  const runCheck = async () => {
    setChecking(true);
    setMessage(null);
    try {
      setCheck(await sendJson<EpisodeCheck>(`/api/episodes/${encodeURIComponent(ep.id)}/recheck`, "POST"));
    } catch (err) {
      setMessage((err as Error).message);
    } finally {
      setChecking(false);
    }
  };

  const branch = async (k: number) => {
    setMessage(null);
    try {
      const r = await sendJson<{ id: string; href: string }>(`/api/episodes/${encodeURIComponent(ep.id)}/branch`, "POST", { turn: k, annotator: author });
      window.location.href = r.href;
    } catch (err) {
      setMessage((err as Error).message);
    }
  };

  const checkByIndex = useMemo(() => new Map(check?.turns.map((t) => [t.index, t]) ?? []), [check]);
  const scoreByIndex = useMemo(() => new Map(scores?.turns.map((t) => [t.index, t]) ?? []), [scores]);
  const rewards = turns.map((t) => t.reward ?? scoreByIndex.get(t.index)?.reward ?? null);
  const turn = current >= 0 ? turns[current] : undefined;
  const isSubmitTurn = (t: { action: string }) => isSubmit(t.action);
  // A submit turn's output is the scored answer; the output compared with gold's is the last one before it.
  const compared = turn && isSubmitTurn(turn) ? turns.slice(0, current).filter((t) => !isSubmitTurn(t)).at(-1) : turn;
  const turnTags = (i: number) => data.annotations.filter((a) => a.turnIndex === i && a.kind === "tag" && a.status === "accepted");

  return (
    <div className="grid gap-4 p-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]" data-testid="replay" data-ready="1">
      <div className="min-w-0 space-y-3">
        <header className="space-y-1">
          <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-400">
            <Link className="hover:text-zinc-100" href={`/tasks/${ep.environment}/${encodeURIComponent(`${ep.dataset}:${ep.taskId}`)}`}>
              {ep.environment} · {ep.dataset} · task {ep.taskId}
            </Link>
            <span>· {playerLabel(ep)}</span>
            <span>· {ep.status}</span>
            <span data-testid="episode-reward" className={ep.success ? "text-emerald-400" : "text-zinc-300"}>· reward {fmtReward(ep.reward)}{ep.success ? " (solved)" : ""}</span>
            {ep.tags.map((t) => <span key={t} className="rounded bg-zinc-800 px-1 text-emerald-300">{t}</span>)}
            <FlagChips flags={ep.flags} link />
          </div>
          <p className="text-sm text-zinc-100">{ep.query}</p>
          <EpisodeFailure status={ep.status} errorReason={ep.errorReason} />
          {ep.status === "error" && ep.playerKind === "model" && <TurnTranscript episodeId={ep.id} turnIndex={turns.length} label="the failed model call" />}
          <div className="flex flex-wrap gap-3 text-xs text-zinc-400" data-testid="lineage">
            {data.parent && (
              <span>
                branched at turn {ep.branchTurn} from <Link className="text-sky-400 underline" href={`/episodes/${data.parent.id}`}>{data.parent.player} ({fmtReward(data.parent.reward)})</Link>
              </span>
            )}
            {data.children.length > 0 && (
              <span>
                branches:{" "}
                {data.children.map((c) => (
                  <Link key={c.id} className="mr-2 text-sky-400 underline" href={`/episodes/${c.id}`}>
                    from turn {c.branchTurn} · {c.player} · {c.status} {fmtReward(c.reward)}
                  </Link>
                ))}
              </span>
            )}
          </div>
        </header>

        <div className="flex flex-wrap items-center gap-2 text-xs">
          <Button onClick={() => step(-1)} disabled={current <= 0} data-testid="prev">◀ prev (k)</Button>
          <Button onClick={() => step(1)} disabled={current >= turns.length - 1} data-testid="next">next (j) ▶</Button>
          <Button onClick={() => setPlaying((p) => !p)} disabled={turns.length < 2} data-testid="play">{playing ? "pause" : "play"}</Button>
          <select className="rounded border border-zinc-700 bg-zinc-900 px-1" value={speed} onChange={(e) => setSpeed(Number(e.target.value) as (typeof SPEEDS)[number])} aria-label="speed">
            {SPEEDS.map((s) => <option key={s} value={s}>{s}× </option>)}
          </select>
          <span className="text-zinc-400" data-testid="position">turn {current + 1} / {turns.length}</span>
          <span className="ml-auto flex gap-2">
            <Button onClick={runCheck} disabled={checking || !turns.length} data-testid="recheck">{checking ? "replaying…" : "replay check"}</Button>
            <Button onClick={() => void branch(current + 1)} disabled={current < 0} data-testid="branch" title="a new episode with the first turns replayed, opened in the playground">
              continue from turn {current + 1}
            </Button>
          </span>
        </div>
        {check && (
          <p className="text-xs text-zinc-400" data-testid="recheck-summary">
            replay check: {check.turns.filter((t) => t.observationAgrees).length}/{check.turns.length} observations agree ·{" "}
            {check.turns.filter((t) => t.rewardAgrees === true).length}/{check.turns.filter((t) => t.rewardAgrees !== null).length} rewards agree
            {check.error ? ` · stopped: ${check.error}` : ""}
          </p>
        )}
        {message && <p className="text-xs text-red-400">{message}</p>}
        {ep.playerKind === "human" && <RecordingPlayer episodeId={ep.id} current={current} turnCount={turns.length} onTurn={jump} />}

        <p className="text-xs text-zinc-400" data-testid="scores-status">
          {scoring
            ? "scoring every turn: replaying the actions in a fresh sandbox…"
            : scores?.error
              ? <span className="text-amber-400">{scores.error}</span>
              : scores?.source === "replayed" || scores?.source === "cached"
                ? `rewards marked "would be" are what a submit would have scored after that turn (replayed in a sandbox${scores.source === "cached" ? ", cached" : ""}).`
                : null}
        </p>
        <LazyRewardCurve series={[{ name: playerLabel(ep), rewards }]} current={current} onPick={jump} />

        <ol ref={listRef} className="max-h-[60vh] space-y-1 overflow-auto pr-1" data-testid="timeline">
          {turns.map((t, i) => {
            const c = checkByIndex.get(t.index);
            const differs = c && (!c.observationAgrees || c.rewardAgrees === false);
            const sc = scoreByIndex.get(t.index);
            return (
              <li
                key={t.index}
                data-index={i}
                data-testid="turn"
                data-current={i === current ? "1" : undefined}
                aria-current={i === current ? "step" : undefined}
                data-differs={differs ? "1" : undefined}
                onClick={() => setCurrent(i)}
                className={`cursor-pointer rounded border p-2 ${i === current ? "border-emerald-600 bg-zinc-900" : "border-zinc-800 hover:border-zinc-600"} ${differs ? "ring-1 ring-amber-500" : ""}`}
              >
                <div className="flex items-center gap-2 text-xs text-zinc-400">
                  <span className="font-semibold text-zinc-300">#{i + 1}</span>
                  <span className={t.ok === false ? "text-red-400" : t.ok ? "text-emerald-400" : ""}>{t.ok === null ? "?" : t.ok ? "ok" : "invalid"}</span>
                  <TurnActor turn={t} playerKind={ep.playerKind} />
                  <span data-testid="turn-reward" title={sc?.rewardFrom === "replay" ? "what a submit would have scored after this turn (replayed in a sandbox)" : undefined}>
                    {sc?.rewardFrom === "replay" ? "would be" : "reward"} {fmtReward(rewards[i])}
                  </span>
                  {sc?.matchesGold && <span className="rounded bg-emerald-900/60 px-1 text-emerald-200" data-testid="matches-gold">output = gold&apos;s</span>}
                  {t.timedOut && <span className="text-amber-400">timed out</span>}
                  {(t.tokensIn !== null || t.tokensOut !== null) && <span>tokens {t.tokensIn ?? "?"}→{t.tokensOut ?? "?"}</span>}
                  {t.latencyMs !== null && <span title="model reply latency">model {t.latencyMs} ms</span>}
                  {t.durationMs !== null && <span title="time in the environment">{t.latencyMs !== null ? "env " : ""}{t.durationMs} ms</span>}
                  {turnTags(i).map((a) => <span key={a.id} className="rounded bg-zinc-800 px-1 text-emerald-300">{a.tag}</span>)}
                  {differs && <span className="text-amber-400" data-testid="differs">replay differs{c.rewardAgrees === false ? ` (reward ${fmtReward(c.replayedReward)})` : ""}{c.category ? `: ${c.category}` : ""}{c.evidence ? ` (${c.evidence})` : ""}</span>}
                </div>
                {t.thought && <p className="mt-1 text-xs italic text-zinc-400">{t.thought}</p>}
                <div className="mt-1"><Highlight code={t.action} env={ep.environment} /></div>
                {t.actor === "model" && ep.playerKind === "model" && <TurnTranscript episodeId={ep.id} turnIndex={t.index} tokensIn={t.tokensIn} tokensOut={t.tokensOut} latencyMs={t.latencyMs} costUsd={t.costUsd} />}
                {i === current && (
                  <>
                    {ep.environment === "sql" && !isSubmitTurn(t) ? (
                      <SqlResult observation={t.observation} query={t.action} columns={sc?.columns ?? null} view={sqlView} onView={setSqlView} testId="observation" />
                    ) : (
                      <AnsiOutput text={t.observation} className="mt-1 max-h-72" testId="observation" />
                    )}
                    {differs && c && !c.observationAgrees && (
                      <details className="mt-1 text-xs text-zinc-400">
                        <summary>output on replay</summary>
                        <AnsiOutput text={c.replayedObservation} className="max-h-48" />
                      </details>
                    )}
                  </>
                )}
              </li>
            );
          })}
          {!turns.length && <li className="text-xs text-zinc-400">no turns</li>}
        </ol>
        {turn && <p className="text-xs text-zinc-400">j / k or the arrow keys step; Home / End go to the first / last turn; space plays.</p>}
      </div>

      <aside className="min-w-0 space-y-4">
        <GoldPanel
          episodeId={ep.id}
          env={ep.environment}
          breakdown={ep.breakdown}
          recordedGold={ep.gold}
          recordedGoldObservation={ep.goldObservation}
          compared={compared ? { turn: turns.indexOf(compared) + 1, output: compared.observation, matchesGold: scoreByIndex.get(compared.index)?.matchesGold ?? null } : null}
        />
        <AnnotationsPanel episodeId={ep.id} current={current >= 0 ? current : null} annotations={data.annotations} onChange={refresh} />
      </aside>
    </div>
  );
}
