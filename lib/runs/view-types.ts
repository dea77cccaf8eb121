import type { StoredRunConfig } from "./launch-options";

/**
 * A batch run as the runs pages show it (client-safe types; built by lib/runs/run-view.ts).
 * Times are ms since the epoch.
 */
export interface RunTaskView {
  taskId: string;
  /** The episode shown for the task: its finished one, else its latest; null while pending. */
  episodeId: string | null;
  status: "pending" | "running" | "submitted" | "abandoned" | "error" | "interrupted" | string;
  reward: number | null;
  success: boolean;
  /** Turns as InterCode counts them (lib/stats/measures.ts interCodeTurns), as the run's mean turns does. */
  turns: number;
  /** The turns stored, when they differ from `turns` (ReAct's forced final submit is stored, not counted). */
  storedTurns?: number;
  solvedAtTurn: number | null;
  group: string | null;
  errorReason: string | null;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  startedAt: number | null;
  endedAt: number | null;
  /** Where to watch it live (a running episode of a run in this server), else null. */
  watchHref: string | null;
  /** The task is sealed (lib/studies/baseline-seal.ts): reward, success and solved-at are hidden. */
  sealed?: boolean;
}

/** The paper's measures over a set of finished episodes. */
export interface RunMeasures {
  label: string;
  episodes: number;
  solved: number;
  successRate: number;
  meanTurns: number;
  /** Mean share of an episode's actions that failed to run; null when unknown. */
  errorRate: number | null;
  /** successAtK[k-1]: share solved within k turns. */
  successAtK: number[];
}

export interface RunView {
  id: string;
  name: string;
  status: string;
  config: StoredRunConfig | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** Running in this server (it can be stopped here). */
  here: boolean;
  /** Running in some live process (this server or an `icstudio eval`). */
  live: boolean;
  owner: string | null;
  total: number;
  /** Tasks with a finished episode (submitted, abandoned or error). */
  done: number;
  solved: number;
  /** Episodes that ended in an error (a provider or sandbox failure). */
  errors: number;
  running: number;
  /** Finished since the run (re)started: the pace for the time remaining. */
  doneSinceStart: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  overall: RunMeasures | null;
  /** By Spider hardness (sql) or file system (bash), when the tasks have one. */
  groupBy: "hardness" | "db" | null;
  groups: RunMeasures[];
  tasks: RunTaskView[];
}

/** Percentage text, e.g. "66.7%". */
export function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
