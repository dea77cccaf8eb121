"use client";

import Link from "next/link";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { LazyRewardCurve } from "@/components/charts/lazy-reward-curve";
import type { ReplayAnnotation, ReplayHeader } from "@/lib/db/episode-rows";
import { playerLabel } from "@/lib/viewer/player";
import type { EpisodeCheck } from "@/lib/viewer/view-types";
import { AnnotationsPanel } from "./annotations-panel";
import { EpisodeFailure } from "./episode-failure";
import { GoldPanel } from "./gold-panel";
import type { SqlResultView } from "./sql-result";
import { RecordingPlayer } from "./recording-player";
import { TurnTimeline } from "./turn-timeline";
import { TurnTranscript } from "./turn-transcript";
import { sendJson, useAuthor } from "./use-author";
import { useTurnScores } from "./use-turn-scores";
import { useTurnWindow } from "./use-turn-window";
import { FlagChips } from "@/components/episodes/flag-chips";
import { isSubmit } from "@/lib/env/submit";

const SPEEDS = [0.5, 1, 2, 4] as const;
/** How long the selected turn must stay before the URL says it. */
const URL_DELAY_MS = 250;

const fmtReward = (r: number | null) => (r === null ? "–" : r.toFixed(2));

/**
 * One episode's replay: the timeline of turns (step with buttons or j/k and arrow keys, Home/End,
 * play at a speed, click to jump; the selected turn is `?turn=N` in the URL), gold beside it with
 * the selected turn's output against gold's, the reward curve of every turn's would-be reward (the
 * recorded one, else replayed in a sandbox on the server and cached), tags and notes, the replay
 * check and "continue from turn k". The page hands it the episode's header and one window of turns;
 * the timeline is virtualised and the other turns come from /api/episodes/:id/turns as the reader
 * moves (use-turn-window.ts), so its cost does not grow with the episode.
 */
export function ReplayView({ initial, initialTurn }: { initial: ReplayHeader; initialTurn?: number }) {
  const [data, setData] = useState(initial);
  const { episode: ep, turnCount, curve } = data;
  const [current, setCurrent] = useState(turnCount ? Math.max(0, Math.min(turnCount - 1, (initialTurn ?? 1) - 1)) : -1);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const [check, setCheck] = useState<EpisodeCheck | null>(null);
  const [checking, setChecking] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [sqlView, setSqlView] = useState<SqlResultView>("table");
  const [author] = useAuthor();
  const win = useTurnWindow(ep.id, turnCount, initial.window, current);
  // Each held turn's would-be reward, whether its output is gold's, and SQL column names, page by page.
  const scores = useTurnScores(ep.id, turnCount, current);
  const { scoring, byIndex: scoreByIndex } = scores;

  const step = useCallback((d: number) => setCurrent((c) => Math.max(0, Math.min(turnCount - 1, c + d))), [turnCount]);
  const jump = useCallback((i: number) => setCurrent(Math.max(0, Math.min(turnCount - 1, i))), [turnCount]);

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
        jump(turnCount - 1);
      } else if (e.key === " ") {
        e.preventDefault();
        setPlaying((p) => !p);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, jump, turnCount]);

  // The selected turn lives in the URL (1-based), so a link or a reload opens the same turn. Written
  // once the reader pauses (URL_DELAY_MS), or as the page is left, not at every step: a history
  // entry's replacement costs a few milliseconds, most of a step when j is held down.
  useEffect(() => {
    if (current < 0) return;
    const write = () => {
      const url = new URL(window.location.href);
      if (url.searchParams.get("turn") === String(current + 1)) return;
      url.searchParams.set("turn", String(current + 1));
      window.history.replaceState(window.history.state, "", url);
    };
    const t = setTimeout(write, URL_DELAY_MS);
    window.addEventListener("pagehide", write);
    return () => {
      clearTimeout(t);
      window.removeEventListener("pagehide", write);
    };
  }, [current]);

  useEffect(() => {
    if (!playing) return;
    if (current >= turnCount - 1) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => step(1), 1000 / speed);
    return () => clearTimeout(t);
  }, [playing, current, speed, step, turnCount]);

  const refresh = useCallback(async () => {
    const fresh = await sendJson<ReplayHeader>(`/api/episodes/${encodeURIComponent(ep.id)}`, "GET");
    setData((d) => ({ ...fresh, window: d.window }));
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
  // The curve from the store's aggregate (one point per bucket of turns), with the would-be rewards
  // of the buckets that recorded none filled in from the replay's aggregate (same buckets).
  const replayCurve = scores.curve;
  const curveSeries = useMemo(() => {
    const wouldBe = new Map(replayCurve?.bucket === curve.bucket ? replayCurve.points.map((p) => [p.turn, p.reward]) : []);
    return [
      {
        name: playerLabel(ep),
        turns: curve.points.map((p) => p.turn),
        rewards: curve.points.map((p) => p.reward ?? wouldBe.get(p.turn) ?? null),
      },
    ];
  }, [curve, ep, replayCurve]);
  const turn = current >= 0 ? win.turnAt(current) : undefined;
  const isSubmitTurn = (t: { action: string }) => isSubmit(t.action);
  // A submit turn's output is the scored answer; the output compared with gold's is the last one before it.
  let comparedAt = current;
  if (turn && isSubmitTurn(turn)) {
    comparedAt = -1;
    for (let i = current - 1; i >= 0; i--) {
      const t = win.turnAt(i);
      if (!t) break;
      if (!isSubmitTurn(t)) {
        comparedAt = i;
        break;
      }
    }
  }
  const compared = comparedAt >= 0 ? win.turnAt(comparedAt) : undefined;
  const { detail } = win;
  useEffect(() => {
    if (comparedAt >= 0 && comparedAt !== current) detail(comparedAt);
  }, [detail, comparedAt, current]);
  const tagsByTurn = useMemo(() => {
    const m = new Map<number, ReplayAnnotation[]>();
    for (const a of data.annotations)
      if (a.turnIndex !== null && a.kind === "tag" && a.status === "accepted") m.set(a.turnIndex, [...(m.get(a.turnIndex) ?? []), a]);
    return m;
  }, [data.annotations]);

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
            <span data-testid="episode-reward" className={ep.success ? "text-emerald-400" : "text-zinc-300"}>
              · reward {fmtReward(ep.reward)}
              {ep.success ? " (solved)" : ""}
            </span>
            {ep.tags.map((t) => (
              <span key={t} className="rounded bg-zinc-800 px-1 text-emerald-300">
                {t}
              </span>
            ))}
            <FlagChips flags={ep.flags} link />
          </div>
          <p className="text-sm text-zinc-100">{ep.query}</p>
          <EpisodeFailure status={ep.status} errorReason={ep.errorReason} />
          {ep.status === "error" && ep.playerKind === "model" && <TurnTranscript episodeId={ep.id} turnIndex={turnCount} label="the failed model call" />}
          <div className="flex flex-wrap gap-3 text-xs text-zinc-400" data-testid="lineage">
            {data.parent && (
              <span>
                branched at turn {ep.branchTurn} from{" "}
                <Link className="text-sky-400 underline" href={`/episodes/${data.parent.id}`}>
                  {data.parent.player} ({fmtReward(data.parent.reward)})
                </Link>
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
          <Button onClick={() => step(-1)} disabled={current <= 0} data-testid="prev">
            ◀ prev (k)
          </Button>
          <Button onClick={() => step(1)} disabled={current >= turnCount - 1} data-testid="next">
            next (j) ▶
          </Button>
          <Button onClick={() => setPlaying((p) => !p)} disabled={turnCount < 2} data-testid="play">
            {playing ? "pause" : "play"}
          </Button>
          <select
            className="rounded border border-zinc-700 bg-zinc-900 px-1"
            value={speed}
            onChange={(e) => setSpeed(Number(e.target.value) as (typeof SPEEDS)[number])}
            aria-label="speed"
          >
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×{" "}
              </option>
            ))}
          </select>
          <span className="text-zinc-400" data-testid="position">
            turn {current + 1} / {turnCount}
          </span>
          <span className="ml-auto flex gap-2">
            <Button onClick={runCheck} disabled={checking || !turnCount} data-testid="recheck">
              {checking ? "replaying…" : "replay check"}
            </Button>
            <Button
              onClick={() => void branch(current + 1)}
              disabled={current < 0}
              data-testid="branch"
              title="a new episode with the first turns replayed, opened in the playground"
            >
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
        {win.error && (
          <p className="text-xs text-red-400" role="alert">
            {win.error}
          </p>
        )}
        {ep.playerKind === "human" && <RecordingPlayer episodeId={ep.id} current={current} turnCount={turnCount} onTurn={jump} />}

        <p className="text-xs text-zinc-400" data-testid="scores-status">
          {scoring ? (
            "scoring every turn: replaying the actions in a fresh sandbox…"
          ) : scores.error ? (
            <span className="text-amber-400">{scores.error}</span>
          ) : scores.source === "replayed" || scores.source === "cached" ? (
            `rewards marked "would be" are what a submit would have scored after that turn (replayed in a sandbox${scores.source === "cached" ? ", cached" : ""}).`
          ) : null}
        </p>
        <LazyRewardCurve series={curveSeries} current={current} onPick={jump} />

        <TurnTimeline
          turnCount={turnCount}
          current={current}
          win={win}
          env={ep.environment}
          playerKind={ep.playerKind}
          episodeId={ep.id}
          scoreByIndex={scoreByIndex}
          ensureScores={scores.ensure}
          checkByIndex={checkByIndex}
          tagsByTurn={tagsByTurn}
          sqlView={sqlView}
          onSqlView={setSqlView}
          onPick={setCurrent}
        />
        {turnCount > 0 && <p className="text-xs text-zinc-400">j / k or the arrow keys step; Home / End go to the first / last turn; space plays.</p>}
      </div>

      <aside className="min-w-0 space-y-4">
        <GoldPanel
          episodeId={ep.id}
          env={ep.environment}
          breakdown={ep.breakdown}
          recordedGold={ep.gold}
          recordedGoldObservation={ep.goldObservation}
          compared={
            compared ? { turn: comparedAt + 1, output: compared.observation, matchesGold: scoreByIndex.get(compared.index)?.matchesGold ?? null } : null
          }
        />
        <AnnotationsPanel episodeId={ep.id} current={current >= 0 ? current : null} turnCount={turnCount} annotations={data.annotations} onChange={refresh} />
      </aside>
    </div>
  );
}
