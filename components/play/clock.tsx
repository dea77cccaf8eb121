"use client";

import { useEffect, useState } from "react";

/** The baseline clock: time since the first action (stops when the episode ends). */
export function Clock({ startedAt, stopped }: { startedAt: number | null; stopped: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (startedAt === null || stopped) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [startedAt, stopped]);
  const s = startedAt === null ? 0 : Math.max(0, Math.floor((now - startedAt) / 1000));
  return (
    <span className="font-mono text-xs text-zinc-300" data-testid="clock" title="time since the first action">
      ⏱ {String(Math.floor(s / 60)).padStart(2, "0")}:{String(s % 60).padStart(2, "0")}
    </span>
  );
}
