import type { EpisodeView } from "@/lib/live/events";

const LOOK: Record<string, { text: string; cls: string; title: string }> = {
  ready: { text: "not started", cls: "border-zinc-600 text-zinc-200", title: "Nothing is stored until your first action" },
  running: { text: "running", cls: "border-sky-600 bg-sky-950 text-sky-200", title: "The episode is open: act, then submit" },
  submitted: { text: "submitted", cls: "border-emerald-600 bg-emerald-950 text-emerald-200", title: "Scored and stored" },
  abandoned: { text: "abandoned", cls: "border-zinc-500 bg-zinc-800 text-zinc-200", title: "Ended without a score" },
  interrupted: { text: "interrupted", cls: "border-amber-600 bg-amber-950 text-amber-200", title: "Its sandbox was closed; reload to restore it" },
  error: { text: "error", cls: "border-red-600 bg-red-950 text-red-200", title: "The sandbox failed; the episode is stored as an error" },
};

/**
 * The episode's own status (not the connection's): running, submitted, abandoned, interrupted or
 * error, or "not started" before the first action (when nothing is stored yet).
 */
export function EpisodeStatus({ episode }: { episode: EpisodeView | null }) {
  if (!episode) return null;
  const key = episode.stored === false && episode.status === "running" ? "ready" : episode.status;
  const look = LOOK[key] ?? LOOK.running;
  return (
    <span className={`rounded-full border px-2 py-0.5 text-xs font-medium ${look.cls}`} data-testid="episode-status" data-status={key} title={look.title}>
      {look.text}
    </span>
  );
}
