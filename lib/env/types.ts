import type { EnvName, Task } from "@/lib/datasets/types";
import type { RewardBreakdown } from "@/lib/reward/types";
import type { Limits } from "@/lib/sandbox/limits";
import type { TextTable } from "@/lib/sql/text-table";
import type { ProfileName } from "./profiles";

export interface StepOptions {
  /** Called with output as it streams (the playground's console). */
  onOutput?: (chunk: string) => void;
  /** Aborting stops the running action (Ctrl+C); the episode goes on. */
  signal?: AbortSignal;
}

export interface StepResult {
  observation: string;
  /** The action executed without error: InterCode's "valid action". */
  ok: boolean;
  /** The episode has ended (a submit action was given). */
  done: boolean;
  timedOut?: boolean;
  truncated?: boolean;
  aborted?: boolean;
  /** Set when the action was a submit: its result. */
  submitted?: SubmitResult;
  /** SQL: the column names of the query's result set (the observation itself stays InterCode's rows). */
  columns?: string[];
  /**
   * SQL: the result set with its column names, for a person's console only (never stored, never
   * shown to a model: the observation stays InterCode's text).
   */
  table?: TextTable;
}

export interface SubmitResult {
  reward: number;
  breakdown: RewardBreakdown;
  /** What the gold solution printed (gold's observation). */
  goldObservation: string;
  /** The agent's answer as scored: its last observation, the submitted function, or the flag. */
  agentObservation: string;
}

/**
 * One episode of one environment. Every episode has its own fresh state: nothing an action
 * does can leak into another episode.
 */
export interface Environment {
  readonly env: EnvName;
  readonly task: Task | null;
  /** Starts a fresh episode on `task` and returns the task's query as the first observation. */
  reset(task: Task): Promise<{ observation: string }>;
  /**
   * Runs one action. `submit`, `submit <arg>` typed as an action ends the episode as submit() does.
   * Never throws for the action's own failure: that is `ok: false` with an observation.
   */
  step(action: string, options?: StepOptions): Promise<StepResult>;
  /** Ends the episode and scores it. */
  submit(arg?: string): Promise<SubmitResult>;
  /** The reward a submit would get now, without ending the episode. */
  evaluate(arg?: string): Promise<SubmitResult>;
  /** Frees the sandbox; safe to call twice. */
  close(): Promise<void>;
}

export interface EnvironmentOptions {
  /** Sandbox backend: explicit, or "auto" (docker when it answers and its images exist, else local). */
  backend?: "docker" | "local" | "auto";
  limits?: Partial<Limits>;
  /** SQL only: a MySQL-compatible server (mysql://...), else embedded SQLite. */
  sqlUrl?: string;
  /** Which profile's semantics the episode runs under (lib/env/profiles.ts; default "studio"). */
  profile?: ProfileName;
}
