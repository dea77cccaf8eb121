"use client";

import { useEffect, useState } from "react";
import type { RunView } from "@/lib/runs/view-types";

/**
 * A run's view, kept current while it is live: a server-sent event stream of whole views
 * (/api/runs/<id>/events); the browser's EventSource reconnects by itself if the stream drops.
 */
export function useRunView(initial: RunView): { view: RunView; refresh: () => Promise<void> } {
  const [view, setView] = useState(initial);
  const [generation, setGeneration] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reconnect only when asked (a stop or resume from this page), not on every snapshot.
  useEffect(() => {
    if (!view.live && generation === 0) return;
    const es = new EventSource(`/api/runs/${encodeURIComponent(initial.id)}/events`);
    es.onmessage = (e) => {
      const next = JSON.parse(e.data as string) as RunView;
      setView(next);
      if (!next.live) es.close();
    };
    es.addEventListener("failed", () => es.close());
    return () => es.close();
  }, [initial.id, generation]);

  const refresh = async () => {
    const res = await fetch(`/api/runs/${encodeURIComponent(initial.id)}`);
    if (res.ok) setView((await res.json()) as RunView);
    setGeneration((g) => g + 1);
  };
  return { view, refresh };
}
