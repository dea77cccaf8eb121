import { episodeViewSchema } from "@/lib/live/events";

/** Every status an episode can have, in the order a person meets them. */
export const EPISODE_STATUSES = episodeViewSchema.shape.status.options;
export type EpisodeStatus = (typeof EPISODE_STATUSES)[number];

const LOOK: Record<EpisodeStatus, string> = {
  running: "border-sky-700 text-sky-300",
  submitted: "border-emerald-700 text-emerald-300",
  abandoned: "border-zinc-600 text-zinc-300",
  interrupted: "border-amber-700 text-amber-300",
  error: "border-red-700 text-red-300",
};

const HINT: Record<EpisodeStatus, string> = {
  running: "being played (or left open)",
  submitted: "ended with a submit and scored",
  abandoned: "ended without a submit",
  interrupted: "its sandbox closed mid-episode; it resumes by replaying its actions",
  error: "ended by an error (see the replay)",
};

/** An episode's status as a small labelled chip (its meaning in the tooltip). */
export function StatusChip({ status, testId = "status" }: { status: string; testId?: string }) {
  const known = (EPISODE_STATUSES as readonly string[]).includes(status) ? (status as EpisodeStatus) : null;
  return (
    <span
      className={`whitespace-nowrap rounded border px-1 ${known ? LOOK[known] : "border-zinc-600 text-zinc-300"}`}
      title={known ? HINT[known] : undefined}
      data-testid={testId}
      data-status={status}
    >
      {status}
    </span>
  );
}
