/**
 * Where an episode is written. The session (lib/episodes/session.ts) writes every turn through
 * one recorder and waits for it before anyone hears of the turn, so a crash loses at most the
 * action in flight. The Studio's recorder is lib/episodes/db-recorder.ts (the one place a turn is
 * written to lib/db); tests use memoryRecorder. Client-safe types: no server code.
 */
import type { Task } from "@/lib/datasets/types";
import type { EpisodeEnd, EpisodeStartFields, Turn } from "./turn";

/** What starts an episode: its task and how it is played. */
export type EpisodeStart = EpisodeStartFields & { task: Task };

export interface EpisodeRecorder {
  /** Stores a new running episode; resolves with its id. */
  startEpisode(start: EpisodeStart): Promise<string>;
  /** Stores one turn; durable when it resolves. @throws ConflictError when the episode is not running. */
  appendTurn(episodeId: string, turn: Turn): Promise<void>;
  /** Ends the episode (submitted, abandoned, error) or leaves it interrupted. */
  finishEpisode(episodeId: string, end: EpisodeEnd): Promise<void>;
  /** Marks an interrupted episode running again (it is being resumed). */
  reopenEpisode(episodeId: string): Promise<void>;
}
