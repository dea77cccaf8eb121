"use client";

import { useEffect, useRef, useState } from "react";

/** Matches lib/studies/study-clock.ts BEAT_EVERY_MS (client code cannot import the server module). */
const BEAT_EVERY_MS = 5_000;

export interface StudyClockView {
  /** Active time so far (ms): the stored clock plus what this page counted since its last beat. */
  activeMs: number;
  /** The page is open but the person idle (or the page hidden): the clock is paused. */
  idle: boolean;
  remainingMs: number | null;
  timeUp: boolean;
}

/**
 * A study task's active-time clock: counts each second only while the page is visible and
 * focused and the person gave an input within `idleMs`; sends what it counted to the server every
 * few seconds (POST /api/studies/<id>/clock), which keeps the total and the time limit.
 */
export function useStudyClock(o: { studyId: string; taskId: string; annotator?: string; idleMs: number; enabled: boolean }): StudyClockView {
  const [state, setState] = useState<{ stored: number; pending: number; idle: boolean; remainingMs: number | null; limit: number | null }>({
    stored: 0,
    pending: 0,
    idle: false,
    remainingMs: null,
    limit: null,
  });
  const lastInput = useRef(Date.now());
  const pending = useRef(0);

  useEffect(() => {
    if (!o.enabled) return;
    // Another window in front (blur) pauses the clock; any input here means the person is back.
    let blurred = false;
    const mark = () => {
      lastInput.current = Date.now();
      blurred = false;
    };
    const onBlur = () => (blurred = true);
    const events = ["keydown", "mousedown", "mousemove", "wheel", "touchstart", "input", "focus"] as const;
    for (const e of events) window.addEventListener(e, mark, { passive: true, capture: true });
    window.addEventListener("blur", onBlur);
    const activeNow = () => document.visibilityState === "visible" && !blurred && Date.now() - lastInput.current < o.idleMs;
    let last = Date.now();
    const tick = setInterval(() => {
      const now = Date.now();
      const dt = Math.min(now - last, 2_000);
      last = now;
      const active = activeNow();
      if (active) pending.current += dt;
      setState((s) => ({ ...s, pending: pending.current, idle: !active }));
    }, 1_000);
    const send = async (ms: number) => {
      const r = await fetch(`/api/studies/${encodeURIComponent(o.studyId)}/clock`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ taskId: o.taskId, activeMs: ms, annotator: o.annotator }),
        keepalive: true,
      });
      if (!r.ok) return;
      const j = (await r.json()) as { activeMs: number; remainingMs: number | null; timeLimitMs: number | null };
      setState((s) => ({ ...s, stored: j.activeMs, pending: pending.current, remainingMs: j.remainingMs, limit: j.timeLimitMs }));
    };
    const beat = setInterval(() => {
      const ms = pending.current;
      pending.current = 0;
      void send(ms).catch(() => (pending.current += ms));
    }, BEAT_EVERY_MS);
    void send(0).catch(() => {});
    const flush = () => {
      if (pending.current > 0) void send(pending.current).catch(() => {});
      pending.current = 0;
    };
    window.addEventListener("pagehide", flush);
    return () => {
      clearInterval(tick);
      clearInterval(beat);
      flush();
      window.removeEventListener("pagehide", flush);
      window.removeEventListener("blur", onBlur);
      for (const e of events) window.removeEventListener(e, mark, { capture: true });
    };
  }, [o.enabled, o.studyId, o.taskId, o.annotator, o.idleMs]);

  const activeMs = state.stored + state.pending;
  const remainingMs = state.limit === null ? null : Math.max(0, state.limit - activeMs);
  return { activeMs, idle: state.idle, remainingMs, timeUp: remainingMs === 0 };
}
