"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { KEEP_TURNS, WINDOW_TURNS, windowStart } from "@/lib/db/replay-window";
import type { TurnScore, TurnScores } from "@/lib/viewer/view-types";
import { sendJson } from "./use-author";

/** The turn scores the replay holds, page by page, and how it asks for more. */
export interface TurnScoresState {
  /** The scores held, by turn index (the pages around the current turn and in view). */
  byIndex: Map<number, TurnScore>;
  /** The first page is being scored (the server may be replaying the episode in a sandbox). */
  scoring: boolean;
  /** Where the first page's rewards came from; null before it came. */
  source: TurnScores["source"] | null;
  error: string | undefined;
  /** The replayed rewards' aggregate for the reward curve (when turns lack a recorded reward). */
  curve: TurnScores["curve"];
  /** Makes sure the scores of turns from..to (inclusive) are held, fetching the missing pages. */
  ensure(from: number, to: number): void;
}

/**
 * A cursor over an episode's turn scores (POST /api/episodes/:id/turn-scores?from=&limit=): the
 * first page asked with the curve's aggregate (it may start the one replay of the episode), then
 * the pages around `current` and those the list shows, aligned on WINDOW_TURNS; scores farther than
 * KEEP_TURNS from `current` are dropped, so what a step costs does not grow with the episode.
 */
export function useTurnScores(episodeId: string, turnCount: number, current: number): TurnScoresState {
  const held = useRef(new Map<number, TurnScore>());
  const asked = useRef(new Set<number>());
  const [version, setVersion] = useState(0);
  const [first, setFirst] = useState<Pick<TurnScoresState, "source" | "error" | "curve"> | null>(null);
  const [scoring, setScoring] = useState(false);
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);

  const fetchPage = useCallback(
    (page: number, withCurve: boolean) => {
      if (asked.current.has(page)) return;
      asked.current.add(page);
      const q = new URLSearchParams({ from: String(page), limit: String(Math.min(WINDOW_TURNS, turnCount - page)) });
      if (withCurve) {
        q.set("curve", "1");
        setScoring(true);
      }
      sendJson<TurnScores>(`/api/episodes/${encodeURIComponent(episodeId)}/turn-scores?${q}`, "POST")
        .then((r) => {
          if (!live.current) return;
          for (const t of r.turns) held.current.set(t.index, t);
          if (withCurve) setFirst({ source: r.source, error: r.error, curve: r.curve });
          setVersion((v) => v + 1);
        })
        // A page that failed is not asked again (the first one's error is shown).
        .catch((err: Error) => live.current && withCurve && setFirst({ source: "recorded", error: err.message, curve: undefined }))
        .finally(() => live.current && withCurve && setScoring(false));
    },
    [episodeId, turnCount],
  );

  const ready = first !== null;
  const ensure = useCallback(
    (from: number, to: number) => {
      // Until the first page answered (a replay may be running), nothing else is asked.
      if (!ready) return;
      const lo = Math.max(0, from);
      const hi = Math.min(turnCount - 1, to);
      for (let p = Math.floor(lo / WINDOW_TURNS) * WINDOW_TURNS; p <= hi; p += WINDOW_TURNS) fetchPage(p, false);
    },
    [ready, turnCount, fetchPage],
  );

  // The current turn's page first (with the curve), then the window around it; nothing held far away.
  useEffect(() => {
    if (current < 0 || !turnCount) return;
    if (!ready) {
      fetchPage(Math.floor(current / WINDOW_TURNS) * WINDOW_TURNS, true);
      return;
    }
    const from = windowStart(current, turnCount);
    ensure(from, from + WINDOW_TURNS - 1);
    let dropped = false;
    for (const i of held.current.keys()) {
      if (Math.abs(i - current) > KEEP_TURNS) {
        held.current.delete(i);
        dropped = true;
      }
    }
    for (const p of asked.current) if (p + WINDOW_TURNS < current - KEEP_TURNS || p > current + KEEP_TURNS) asked.current.delete(p);
    if (dropped) setVersion((v) => v + 1);
  }, [current, turnCount, ready, ensure, fetchPage]);

  // One Map while nothing held changes, so the rows it is handed to can skip a redraw.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the ref is read through `version`, which changes whenever what it holds does
  const byIndex = useMemo(() => new Map(held.current), [version]);
  return useMemo(
    () => ({ byIndex, scoring, source: first?.source ?? null, error: first?.error, curve: first?.curve, ensure }),
    [byIndex, scoring, first, ensure],
  );
}
