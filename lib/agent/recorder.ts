import type { TurnSource } from "@/lib/episodes/rules";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { RewardBreakdown } from "@/lib/reward/types";

/** One message of the conversation with the model, numbered in order (0 is the system prompt). */
export interface TranscriptEntry {
  seq: number;
  role: "system" | "user" | "assistant";
  content: string;
  /** On a reply: earlier turns left out of the conversation it answered, to fit the context. */
  droppedTurns?: number;
}

/** One turn as the agent loop records it (model or human). */
export interface AgentTurn {
  /** 0-based. */
  index: number;
  actor: "model" | "human";
  /** Where the action came from: "model" for the model's, else where the person typed it. */
  source: TurnSource;
  /** The action run; "" for an invalid turn (no usable action in the reply). */
  action: string;
  /** What the environment printed (as stored, before the budget cut), or why the reply was invalid. */
  observation: string;
  ok: boolean;
  /** True when the reply had no usable action. */
  invalid: boolean;
  /** The reward a submit would have got after this turn, when the policy scored it. */
  reward: number | null;
  thought: string | null;
  rawReply: string | null;
  tokensIn: number | null;
  tokensOut: number | null;
  /** Model latency (retries and back-off included), ms. */
  latencyMs: number | null;
  /** Time the action took in the environment, ms. */
  actionMs: number;
  costUsd: number | null;
  timedOut: boolean;
  aborted: boolean;
  startedAt: Date;
  /** The messages this turn's model calls added to the conversation (prompts and raw replies); none for a person's turn. */
  messages?: TranscriptEntry[];
}

export type EpisodeEndStatus = "submitted" | "abandoned" | "error" | "interrupted";

export interface EpisodeStart {
  task: Task;
  env: EnvName;
  model: string;
  policy: string;
  turnLimit: number;
  /** "eval" for batch runs, "play" for the playground. */
  mode: "eval" | "play";
  /** Whether the model is shown rewards while it plays. */
  feedback: "reward" | "none";
  backend?: string;
  runId?: string;
}

export interface EpisodeEnd {
  status: EpisodeEndStatus;
  reward: number | null;
  breakdown?: RewardBreakdown;
  success: boolean;
  solvedAtTurn: number | null;
  goldObservation?: string;
  agentObservation?: string;
  errorReason?: string;
  /** The turns the loop counts when it stored one it leaves out (a forced submit, `react.forced-submit`). */
  turnsTaken?: number;
  /** Messages no turn claimed (the prompt of a call that failed, a reply that skipped), stored under the next turn's index. */
  unclaimed?: { turnIndex: number; messages: TranscriptEntry[] };
}

/**
 * Where the loop writes an episode. The loop calls `appendTurn` and waits for it before it reports
 * the turn to anyone, so a crash loses at most the action in flight.
 */
export interface EpisodeRecorder {
  startEpisode(start: EpisodeStart): Promise<string>;
  appendTurn(episodeId: string, turn: AgentTurn): Promise<void>;
  finishEpisode(episodeId: string, end: EpisodeEnd): Promise<void>;
}
