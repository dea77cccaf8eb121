"use client";

import { memo, useState } from "react";
import type { ReplayAnnotation, WindowTurn } from "@/lib/db/episode-rows";
import { TURN_CUT } from "@/lib/db/replay-window";
import { isSubmit } from "@/lib/env/submit";
import type { EpisodeCheck, TurnScore } from "@/lib/viewer/view-types";
import { AnsiOutput } from "./ansi-output";
import { Highlight } from "./highlight";
import { SqlResult, type SqlResultView } from "./sql-result";
import { TurnActor } from "./turn-actor";
import { TurnTranscript } from "./turn-transcript";

const fmtReward = (r: number | null) => (r === null ? "–" : r.toFixed(2));

/** "show all" for an observation the server cut: fetches the rest on demand. */
function ShowWhole({ turn, onLoad }: { turn: WindowTurn; onLoad: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className="mt-1 block rounded bg-zinc-800 px-2 py-0.5 font-sans text-xs text-zinc-200 hover:bg-zinc-700"
        data-testid="show-all"
        disabled={busy}
        onClick={(e) => {
          e.stopPropagation();
          setBusy(true);
          onLoad()
            .catch((err: Error) => setError(err.message))
            .finally(() => setBusy(false));
        }}
      >
        {busy
          ? "loading…"
          : `show all (${turn.observationChars.toLocaleString("en-US")} characters; ${(turn.observationChars - turn.observation.length).toLocaleString("en-US")} more)`}
      </button>
      {error && (
        <p className="text-xs text-red-400" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * One item of the replay's timeline: a held turn (its actor, reward, action; the current one with
 * its output, "show all" when the server cut it), or a placeholder while its page is fetched.
 * Memoised: a step redraws the two items whose "current" changed, not every item in view.
 */
export const TurnRow = memo(function TurnRow({
  i,
  turn,
  current,
  env,
  playerKind,
  episodeId,
  reward,
  score,
  check,
  tags,
  sqlView,
  onSqlView,
  whole,
  onWhole,
  onPick,
  start,
  rowRef,
}: {
  /** Its offset in the virtualised list, px. */
  start: number;
  rowRef?: (el: HTMLLIElement | null) => void;
  i: number;
  turn: WindowTurn | undefined;
  current: boolean;
  env: string;
  playerKind: string;
  episodeId: string;
  reward: number | null;
  score: TurnScore | undefined;
  check: EpisodeCheck["turns"][number] | undefined;
  tags: ReplayAnnotation[];
  sqlView: SqlResultView;
  onSqlView: (v: SqlResultView) => void;
  whole: boolean;
  onWhole: (i: number) => Promise<void>;
  onPick: (i: number) => void;
}) {
  const differs = check && (!check.observationAgrees || check.rewardAgrees === false);
  const t = turn;
  // Held as the window's short preview while the rest (up to TURN_CUT) is on its way: what is drawn
  // now is not the turn's output yet (a SQL result cut mid-row shows as text, then as a table).
  const partial = !!t && t.observation.length < Math.min(t.observationChars, TURN_CUT);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the replay's keys (j/k, Home/End, the timeline's own) move between turns; a click is the pointer's shortcut to the same
    <li
      ref={rowRef}
      style={{ transform: `translateY(${start}px)` }}
      data-index={i}
      data-testid="turn"
      data-current={current ? "1" : undefined}
      aria-current={current ? "step" : undefined}
      data-differs={differs ? "1" : undefined}
      data-loaded={t ? "1" : undefined}
      data-partial={partial ? "1" : undefined}
      onClick={() => onPick(i)}
      className={`absolute left-0 top-0 w-full cursor-pointer rounded border p-2 ${current ? "border-emerald-600 bg-zinc-900" : "border-zinc-800 hover:border-zinc-600"} ${differs ? "ring-1 ring-amber-500" : ""}`}
    >
      <div className="flex items-center gap-2 text-xs text-zinc-400">
        <span className="font-semibold text-zinc-300">#{i + 1}</span>
        {!t && <span>loading…</span>}
        {t && <span className={t.ok === false ? "text-red-400" : t.ok ? "text-emerald-400" : ""}>{t.ok === null ? "?" : t.ok ? "ok" : "invalid"}</span>}
        {t && <TurnActor turn={t} playerKind={playerKind} />}
        {t && (
          <span
            data-testid="turn-reward"
            title={score?.rewardFrom === "replay" ? "what a submit would have scored after this turn (replayed in a sandbox)" : undefined}
          >
            {score?.rewardFrom === "replay" ? "would be" : "reward"} {fmtReward(reward)}
          </span>
        )}
        {score?.matchesGold && (
          <span className="rounded bg-emerald-900/60 px-1 text-emerald-200" data-testid="matches-gold">
            output = gold&apos;s
          </span>
        )}
        {t?.timedOut && <span className="text-amber-400">timed out</span>}
        {t && (t.tokensIn !== null || t.tokensOut !== null) && (
          <span>
            tokens {t.tokensIn ?? "?"}→{t.tokensOut ?? "?"}
          </span>
        )}
        {t && t.latencyMs !== null && <span title="model reply latency">model {t.latencyMs} ms</span>}
        {t && t.durationMs !== null && (
          <span title="time in the environment">
            {t.latencyMs !== null ? "env " : ""}
            {t.durationMs} ms
          </span>
        )}
        {tags.map((a) => (
          <span key={a.id} className="rounded bg-zinc-800 px-1 text-emerald-300">
            {a.tag}
          </span>
        ))}
        {differs && (
          <span className="text-amber-400" data-testid="differs">
            replay differs{check.rewardAgrees === false ? ` (reward ${fmtReward(check.replayedReward)})` : ""}
            {check.category ? `: ${check.category}` : ""}
            {check.evidence ? ` (${check.evidence})` : ""}
          </span>
        )}
      </div>
      {t?.thought && <p className="mt-1 text-xs italic text-zinc-400">{t.thought}</p>}
      {t && (
        <div className="mt-1">
          <Highlight code={t.action} env={env} />
        </div>
      )}
      {t && t.actor === "model" && playerKind === "model" && (
        <TurnTranscript episodeId={episodeId} turnIndex={t.index} tokensIn={t.tokensIn} tokensOut={t.tokensOut} latencyMs={t.latencyMs} costUsd={t.costUsd} />
      )}
      {t && current && (
        <>
          {env === "sql" && !isSubmit(t.action) ? (
            <SqlResult observation={t.observation} query={t.action} columns={score?.columns ?? null} view={sqlView} onView={onSqlView} testId="observation" />
          ) : (
            <AnsiOutput text={t.observation} className="mt-1 max-h-72" testId="observation" limit={whole ? Infinity : undefined} />
          )}
          {!whole && <ShowWhole turn={t} onLoad={() => onWhole(i)} />}
          {differs && check && !check.observationAgrees && (
            <details className="mt-1 text-xs text-zinc-400">
              <summary>output on replay</summary>
              <AnsiOutput text={check.replayedObservation} className="max-h-48" />
            </details>
          )}
        </>
      )}
    </li>
  );
});
