"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { TurnWindow, WindowTurn } from "@/lib/db/episode-rows";
import { KEEP_TURNS, TURN_CUT, WINDOW_TURNS, windowStart } from "@/lib/db/replay-window";
import { sendJson } from "./use-author";

/** The turns the client holds of a long episode, and how it asks for more. */
export interface TurnWindowState {
  /** The turn at a position (0-based), when held. */
  turnAt(i: number): WindowTurn | undefined;
  /** Makes sure the turns from..to (inclusive) are held, fetching the missing pages. */
  ensure(from: number, to: number): void;
  /** Makes sure a held turn's observation is held at TURN_CUT characters (the current turn's always is). */
  detail(i: number): void;
  /** Fetches a turn's whole observation ("show all"). */
  loadWhole(i: number): Promise<void>;
  /** Whether a turn's observation is held whole. */
  whole(i: number): boolean;
  /** Turns held now (for the page's own bound: never more than KEEP_TURNS plus a page). */
  held: number;
  error: string | null;
}

/** Whether a held turn's observation is there up to TURN_CUT characters (all of it, when shorter). */
const detailed = (t: WindowTurn | undefined) => !!t && t.observation.length >= Math.min(t.observationChars, TURN_CUT);

const url = (episodeId: string, q: Record<string, number | string>) =>
  `/api/episodes/${encodeURIComponent(episodeId)}/turns?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`;

/**
 * A cursor over an episode's turns (/api/episodes/:id/turns): starts from the page's window (its
 * observations cut short), fetches the pages around `current` and the ranges the list shows with
 * observations at `TURN_CUT` characters, and drops the turns far from `current`, so what the tab
 * holds does not grow with the episode.
 */
export function useTurnWindow(episodeId: string, turnCount: number, initial: TurnWindow, current: number): TurnWindowState {
  const turns = useRef(new Map<number, WindowTurn>(initial.turns.map((t, k) => [initial.from + k, t])));
  const wholeSet = useRef(new Set<number>());
  const pending = useRef(new Set<string>());
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const bump = useCallback(() => setVersion((v) => v + 1), []);

  const fetchPage = useCallback(
    (from: number, limit: number, cut?: number) => {
      const key = `${from}:${limit}:${cut ?? ""}`;
      if (pending.current.has(key)) return;
      pending.current.add(key);
      sendJson<TurnWindow>(url(episodeId, cut ? { from, limit, cut } : { from, limit }), "GET")
        .then((w) => {
          w.turns.forEach((t, k) => {
            const have = turns.current.get(w.from + k);
            // A longer cut already held is kept.
            if (!have || have.observation.length < t.observation.length) turns.current.set(w.from + k, t);
          });
          setError(null);
          bump();
        })
        .catch((err: Error) => setError(`turns could not be loaded: ${err.message}`))
        .finally(() => pending.current.delete(key));
    },
    [episodeId, bump],
  );

  const ensure = useCallback(
    (from: number, to: number) => {
      const lo = Math.max(0, from);
      const hi = Math.min(turnCount - 1, to);
      for (let i = lo; i <= hi; i++) {
        if (detailed(turns.current.get(i))) continue;
        // A page aligned on WINDOW_TURNS, so that neighbouring asks share it; its observations at
        // TURN_CUT, so that a step within it needs no request (the page's own window came cut shorter).
        const page = Math.floor(i / WINDOW_TURNS) * WINDOW_TURNS;
        fetchPage(page, Math.min(WINDOW_TURNS, turnCount - page), TURN_CUT);
        i = page + WINDOW_TURNS - 1;
      }
    },
    [turnCount, fetchPage],
  );

  const detail = useCallback(
    (i: number) => {
      const t = turns.current.get(i);
      if (t && !detailed(t)) fetchPage(i, 1, TURN_CUT);
    },
    [fetchPage],
  );

  // Around the current turn: its page and the one next to it, its observation at TURN_CUT, and
  // nothing held farther than KEEP_TURNS away.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` re-runs it when a page lands, so what is then held too far away goes
  useEffect(() => {
    if (current < 0) return;
    const from = windowStart(current, turnCount);
    ensure(from, from + WINDOW_TURNS - 1);
    detail(current);
    let dropped = false;
    for (const i of turns.current.keys()) {
      if (Math.abs(i - current) > KEEP_TURNS) {
        turns.current.delete(i);
        wholeSet.current.delete(i);
        dropped = true;
      }
    }
    if (dropped) bump();
  }, [current, turnCount, ensure, detail, bump, version]);

  const loadWhole = useCallback(
    async (i: number) => {
      const w = await sendJson<TurnWindow>(url(episodeId, { from: i, limit: 1, full: 1 }), "GET");
      if (w.turns[0]) {
        turns.current.set(i, w.turns[0]);
        wholeSet.current.add(i);
        bump();
      }
    },
    [episodeId, bump],
  );

  // One object while nothing held changes, so the components it is handed to can skip a redraw.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the refs are read through `version`, which changes whenever the turns held do
  return useMemo<TurnWindowState>(
    () => ({
      turnAt: (i) => turns.current.get(i),
      ensure,
      detail,
      loadWhole,
      whole: (i) => wholeSet.current.has(i) || (turns.current.get(i)?.observationChars ?? 1) <= (turns.current.get(i)?.observation.length ?? 0),
      held: turns.current.size,
      error,
    }),
    [version, error, ensure, detail, loadWhole],
  );
}
