"use client";

import type { PublicTask } from "@/lib/tasks/public-task";
import { type ModelActor, ModelEpisode } from "./model-episode";
import { type PersonActor, PersonEpisode } from "./person-episode";

/** Who acts in the episode: a person playing it, or a model a person watches (and may take over from). */
export type LiveActor = ({ kind: "person" } & PersonActor) | ({ kind: "model" } & ModelActor);

/**
 * One live episode on a page, whoever acts: the task, the editor and the console
 * (./episode-workspace.tsx) under the controls the actor has. A person runs, submits, restarts,
 * abandons or skips (./person-episode.tsx); a model's episode is started or reattached, paused,
 * stepped, resumed, stopped, taken over (then the person acts from the editor and console and
 * submits) and handed back (./model-episode.tsx). Both follow the episode on the one live channel.
 */
export function LiveEpisodeView({ task, actor }: { task: PublicTask; actor: LiveActor }) {
  if (actor.kind === "model") return <ModelEpisode task={task} turnLimit={actor.turnLimit} attachId={actor.attachId} />;
  const { kind: _, ...person } = actor;
  return <PersonEpisode task={task} {...person} />;
}
