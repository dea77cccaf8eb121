"use client";

import { useEffect, useState } from "react";
import { ClockIcon } from "@/components/ui/icons";

/**
 * The baseline clock: time since the first action. A finished episode (`endedAt` set) shows its
 * fixed span, firstActionAt → endedAt, the same span the store keeps as its durationMs, and never
 * ticks; otherwise the clock ticks each second until `stopped`.
 */
export function Clock({ startedAt, endedAt = null, stopped }: { startedAt: number | null; endedAt?: number | null; stopped: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  const ticking = startedAt !== null && endedAt === null && !stopped;
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ticking]);
  const until = endedAt ?? now;
  const s = startedAt === null ? 0 : Math.max(0, Math.floor((until - startedAt) / 1000));
  return (
    <span className="inline-flex items-center gap-1 font-mono text-xs text-zinc-300" data-testid="clock" title="time since the first action">
      <ClockIcon /> {String(Math.floor(s / 60)).padStart(2, "0")}:{String(s % 60).padStart(2, "0")}
    </span>
  );
}
