import "server-only";
import type { EnvName } from "@/lib/datasets/types";
import type { RewardBreakdown } from "@/lib/reward/types";

/**
 * What the live episode manager needs from the trajectory store. The production implementation
 * (lib/server/db-store.ts) maps these calls onto lib/db; keeping the seam narrow lets the manager
 * be read without the store's schema in mind.
 */
export interface StoredEpisode {
  id: string;
  env: EnvName;
  dataset: string;
  taskId: string;
  status: "running" | "submitted" | "abandoned" | "interrupted" | "error";
  mode: "play" | "baseline";
  feedback: "none" | "reward";
  turnLimit: number;
  annotator: string | null;
  studyId: string | null;
  reward: number | null;
  breakdown: RewardBreakdown | null;
  goldObservation: string | null;
  agentObservation: string | null;
  firstActionAt: number | null;
  /** When the episode ended (ms since the epoch); null or absent while it runs. */
  endedAt?: number | null;
  turns: StoredTurn[];
}

export interface StoredTurn {
  index: number;
  action: string;
  source: string;
  observation: string;
  ok: boolean;
  reward: number | null;
  startedAt: number;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
}

export interface NewEpisode {
  /** The id the live episode already goes by (it is named when opened, stored at its first action). */
  id: string;
  env: EnvName;
  dataset: string;
  taskId: string;
  taskIndex: number;
  query: string;
  /** The gold solution as text (stored for the viewer; never sent before submit). */
  gold: string;
  hardness: string | null;
  /** SQL database or bash file system. */
  db: string | null;
  mode: "play" | "baseline";
  feedback: "none" | "reward";
  turnLimit: number;
  annotator: string | null;
  studyId: string | null;
  backend: string;
}

export interface EpisodeStore {
  createEpisode(e: NewEpisode): Promise<{ id: string }>;
  /** Must be durable when it resolves: the turn is sent to the player only after. */
  appendTurn(episodeId: string, turn: StoredTurn): Promise<void>;
  finishEpisode(
    episodeId: string,
    result:
      | { status: "submitted"; reward: number; breakdown: RewardBreakdown; goldObservation: string; agentObservation: string }
      | { status: "abandoned"; reason?: string }
      | { status: "error"; reason: string },
  ): Promise<void>;
  /** Marks an interrupted episode running again (it is being resumed). */
  reopenEpisode(episodeId: string): Promise<void>;
  getEpisodeById(episodeId: string): Promise<StoredEpisode | null>;
}
