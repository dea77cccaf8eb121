/**
 * Recording by wrapping: a RecordingEnvironment wraps an Environment, times each call, and writes
 * each turn through the one EpisodeRecorder before it returns it. The session
 * (lib/episodes/session.ts) plays episodes only through it, so every path that plays an episode
 * records the same way and nothing else writes turns. Client-safe: no server code.
 */
import type { Environment, StepOptions, StepResult, SubmitResult } from "@/lib/env/types";
import type { EpisodeRecorder } from "./recorder";
import type { EpisodeEnd, Turn } from "./turn";

/** Time spent in the environment and in the store, ms (and the store's CPU time). */
export interface Timings {
  envMs: number;
  storeMs: number;
  cpuStoreMs: number;
}

/** How a step is scored once it has run (inside the timed window): its reward, and the observation to store when it is rewritten. */
export type ScoreStep = (env: Environment, step: StepResult) => Promise<{ reward: number | null; observation?: string }>;

const cpuNow = (): NodeJS.CpuUsage | null => (typeof process !== "undefined" && process.cpuUsage ? process.cpuUsage() : null);
const cpuSince = (c: NodeJS.CpuUsage | null): number => {
  if (!c) return 0;
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};

export class RecordingEnvironment {
  readonly timings: Timings = { envMs: 0, storeMs: 0, cpuStoreMs: 0 };

  constructor(
    private readonly ready: Promise<Environment>,
    private readonly recorder: EpisodeRecorder,
  ) {}

  /** The environment once created and reset (time spent waiting for it counts as environment time). */
  environment(): Promise<Environment> {
    return this.env(() => this.ready);
  }

  /** Times an environment call. */
  async env<T>(f: () => Promise<T>): Promise<T> {
    const s = performance.now();
    try {
      return await f();
    } finally {
      this.timings.envMs += performance.now() - s;
    }
  }

  /** Times a store call. */
  async store<T>(f: () => Promise<T>): Promise<T> {
    const s = performance.now();
    const c = cpuNow();
    try {
      return await f();
    } finally {
      this.timings.storeMs += performance.now() - s;
      this.timings.cpuStoreMs += cpuSince(c);
    }
  }

  /**
   * Runs an action and scores it (`score`), then writes the turn `build` makes of it. Resolves
   * once the turn is stored. Throws what the environment or the store throws (nothing is written
   * when the step fails).
   */
  async step(
    episodeId: string,
    action: string,
    options: StepOptions & {
      score?: ScoreStep;
      /** Once aborted, the step's result is dropped (the episode is being stopped) and its reason thrown. */
      stop?: AbortSignal;
    },
    build: (step: StepResult, scored: { reward: number | null; observation: string; durationMs: number }) => Turn,
  ): Promise<{ turn: Turn; step: StepResult }> {
    const e = await this.environment();
    const s = performance.now();
    const step = await this.env(() => e.step(action, { onOutput: options.onOutput, signal: options.signal }));
    const durationMs = performance.now() - s;
    options.stop?.throwIfAborted();
    const scored = options.score ? await this.env(() => options.score!(e, step)) : { reward: null };
    const turn = build(step, { reward: scored.reward, observation: scored.observation ?? step.observation, durationMs });
    await this.record(episodeId, turn);
    return { turn, step };
  }

  /** Writes a turn that ran no action (a model reply without one). */
  async record(episodeId: string, turn: Turn): Promise<void> {
    await this.store(() => this.recorder.appendTurn(episodeId, turn));
  }

  async evaluate(arg?: string): Promise<SubmitResult> {
    const e = await this.environment();
    return this.env(() => e.evaluate(arg));
  }

  async submit(arg?: string): Promise<SubmitResult> {
    const e = await this.environment();
    return this.env(() => e.submit(arg));
  }

  async finish(episodeId: string, end: EpisodeEnd): Promise<void> {
    await this.store(() => this.recorder.finishEpisode(episodeId, end));
  }

  /** Closes the sandbox (whether or not it started). */
  async close(): Promise<void> {
    await this.ready.then((e) => e.close()).catch(() => {});
  }
}
