/**
 * The one episode being played: a state machine over a sandboxed Environment, recorded by
 * wrapping (lib/episodes/recording-env.ts) through one EpisodeRecorder. The playground
 * (lib/live/person-actor.ts) and model runs (lib/agent/run-episode.ts) both drive it; a person
 * and a model are two kinds of actor in the same session (a model episode taken over by a person
 * records the person's turns as "human" with where they were typed).
 *
 *   new ──open──▶ running ──act/evaluate──▶ running
 *                   │ submit ──▶ submitted      abandon ──▶ abandoned
 *                   │ fail   ──▶ error          interrupt ──▶ interrupted ──resume (replay)──▶ running
 *
 * Pause, take over and hand back are the controller's (lib/episodes/controller.ts): they decide
 * whose turn is next, between turns. The sandbox cap and idle close are the pool's
 * (lib/live/session-pool.ts). Client-safe: no server code (the recorder and the environment
 * are given to it).
 */
import type { EnvName, Task } from "@/lib/datasets/types";
import type { EpisodeRecord } from "@/lib/db/record";
import type { Environment, StepResult, SubmitResult } from "@/lib/env/types";
import { ConflictError } from "@/lib/errors";
import type { RewardBreakdown } from "@/lib/reward/types";
import type { EpisodeRecorder, EpisodeStart } from "./recorder";
import { RecordingEnvironment, type ScoreStep } from "./recording-env";
import { isForcedSubmit } from "./rules";
import { isSubmit } from "@/lib/env/submit";
import { MODEL_FIELDS_EMPTY, turnView, type Actor, type EpisodeEnd, type Turn, type TurnView } from "./turn";

export type SessionStatus = "new" | "running" | "submitted" | "abandoned" | "interrupted" | "error";

/**
 * A stored episode as a session resumes it: the fields of its record (lib/db/record.ts) play
 * needs, its kinds narrowed to what play knows, times as Unix milliseconds, the breakdown parsed.
 */
export type StoredEpisode = Pick<
  EpisodeRecord,
  "id" | "dataset" | "taskId" | "turnLimit" | "annotator" | "studyId" | "reward" | "goldObservation" | "agentObservation"
> & {
  env: EnvName;
  status: "running" | "submitted" | "abandoned" | "interrupted" | "error";
  mode: "play" | "baseline";
  feedback: "none" | "reward";
  breakdown: RewardBreakdown | null;
  firstActionAt: number | null;
  /** When the episode ended (ms since the epoch); null or absent while it runs. */
  endedAt?: number | null;
  turns: (TurnView & { actor: Actor })[];
};

/** What a model's turn carries beyond the action (absent for a person's turn): the turn's model fields, each known but the thought. */
export type TurnMeta = { [K in "rawReply" | "tokensIn" | "tokensOut" | "latencyMs" | "costUsd"]: NonNullable<Turn[K]> } & Pick<Turn, "thought">;

/** Who acts and from where. */
export interface ActorRef {
  actor: Actor;
  source: Turn["source"];
  meta?: TurnMeta | null;
  /** The messages the turn's model calls added to the conversation. */
  messages?: Turn["messages"];
}

export interface SessionOptions {
  task: Task;
  recorder: EpisodeRecorder;
  /** How the episode is stored (its task's fields come from the task). */
  start: Omit<EpisodeStart, "task" | "env">;
  /** Creates the sandbox; the session resets it on the task. */
  environment: () => Promise<Environment>;
  /**
   * "open": the episode is stored when opened (model runs); "first-action": at its first action or
   * submit, so a page merely opened leaves nothing behind (the playground).
   */
  storeAt: "open" | "first-action";
  /** Called just before the episode is first stored (the playground checks the baseline seal again); may throw. */
  beforeStore?: () => void | Promise<void>;
}

export class EpisodeSession {
  readonly task: Task;
  readonly turnLimit: number;
  /** The episode's id: chosen when opened, or given by the store when it is stored at open. */
  id: string;
  status: SessionStatus = "new";
  /** The recorded turns (a resumed session starts with its stored ones). */
  turns: TurnView[] = [];
  firstActionAt: number | null = null;
  /** True once the episode is in the store. */
  stored = false;
  /** True when the session was rebuilt by replaying stored actions. */
  replayed = false;
  /** The turn number (1-based) at which a turn first scored 1.0. */
  solvedAtTurn: number | null = null;
  private readonly env: RecordingEnvironment;
  private storing: Promise<void> | null = null;

  private constructor(
    private readonly options: SessionOptions,
    ready: Promise<Environment>,
  ) {
    this.task = options.task;
    this.turnLimit = options.start.turnLimit;
    this.id = options.start.id ?? "";
    this.env = new RecordingEnvironment(ready, options.recorder);
    ready.catch(() => {});
  }

  /**
   * Opens an episode: the sandbox is created and reset in the background (await `ready()` to wait
   * for it); with storeAt "open" the episode is stored before this resolves.
   */
  static async open(options: SessionOptions): Promise<EpisodeSession> {
    const ready = options.environment().then(async (e) => {
      try {
        await e.reset(options.task);
        return e;
      } catch (err) {
        await e.close().catch(() => {});
        throw err;
      }
    });
    const s = new EpisodeSession(options, ready);
    s.status = "running";
    if (options.storeAt === "open") await s.ensureStored();
    return s;
  }

  /**
   * Resumes a stored episode in a fresh sandbox by replaying its stored actions (submits are not
   * replayed), and marks it running again when it was interrupted.
   */
  static async resume(options: Omit<SessionOptions, "storeAt">, stored: StoredEpisode): Promise<EpisodeSession> {
    const s = await EpisodeSession.open({ ...options, start: { ...options.start, id: stored.id }, storeAt: "first-action" });
    try {
      const e = await s.ready();
      for (const t of stored.turns) if (!isSubmit(t.action)) await e.step(t.action);
      if (stored.status === "interrupted") await options.recorder.reopenEpisode(stored.id);
    } catch (err) {
      await s.close();
      throw err;
    }
    s.stored = true;
    s.replayed = true;
    s.turns = stored.turns.map((t) => ({ ...t }));
    s.firstActionAt = stored.firstActionAt ?? null;
    return s;
  }

  /** The environment once created and reset. @throws what creating or resetting it threw */
  ready(): Promise<Environment> {
    return this.env.environment();
  }

  /** Time spent in the environment and the store. */
  get timings() {
    return this.env.timings;
  }

  get running(): boolean {
    return this.status === "running";
  }

  /** The turn limit is reached: only a (forced) submit is left. */
  get limitReached(): boolean {
    return this.turns.length >= this.turnLimit;
  }

  /** Stores the episode if it is not yet stored. */
  async ensureStored(): Promise<void> {
    if (this.stored) return;
    this.storing ??= (async () => {
      await this.options.beforeStore?.();
      const { task, start, recorder } = this.options;
      const id = await this.env.store(() => recorder.startEpisode({ ...start, id: start.id, task, env: task.env }));
      this.id = id;
      this.stored = true;
    })().finally(() => (this.storing = null));
    await this.storing;
  }

  /**
   * Runs one action by `who`, scores it with `score` when given, records the turn and returns it.
   * @throws ConflictError when the episode is not running or the turn limit is reached; what the
   * environment or the store throws (the caller ends the episode with fail()).
   */
  async act(
    action: string,
    who: ActorRef,
    options: {
      signal?: AbortSignal;
      stop?: AbortSignal;
      onOutput?: (chunk: string) => void;
      score?: ScoreStep;
      startedAt?: Date;
      /** The action as the turn stores it, when the loop logs it otherwise than it runs (InterCode's ReAct: `execute[<action>]`). */
      logged?: string;
    } = {},
  ): Promise<{ turn: Turn; step: StepResult }> {
    this.assertCanAct();
    await this.ensureStored();
    const startedAt = options.startedAt ?? new Date();
    this.firstActionAt ??= startedAt.getTime();
    const index = this.turns.length;
    const r = await this.env.step(this.id, action, options, (step, scored) => ({
      ...this.base(index, who, startedAt),
      action: options.logged ?? action,
      observation: scored.observation,
      ok: step.ok,
      reward: scored.reward,
      durationMs: Math.round(scored.durationMs),
      timedOut: !!step.timedOut,
      aborted: !!step.aborted,
    }));
    if (r.turn.reward === 1 && this.solvedAtTurn === null) this.solvedAtTurn = index + 1;
    this.turns.push(turnView(r.turn));
    return r;
  }

  /** Records a model's turn that ran no action (its reply had none usable): ok false, invalid. */
  async invalid(reason: string, who: ActorRef, startedAt = new Date()): Promise<Turn> {
    this.assertRunning();
    return this.recordWithoutStep({ action: "", observation: reason, ok: false, invalid: true, reward: null }, who, startedAt);
  }

  /**
   * Records a turn that the environment scored without running anything, and goes on: a wrong
   * CTF flag under `ctf.wrong-flag` = turn-and-continue (InterCode's CTF loop stopped only at a
   * correct flag). It counts toward the turn limit like any other turn.
   */
  async scoredWithoutRun(action: string, observation: string, reward: number, who: ActorRef, startedAt = new Date()): Promise<Turn> {
    this.assertCanAct();
    return this.recordWithoutStep({ action, observation, ok: true, invalid: false, reward }, who, startedAt);
  }

  /** Stores a turn the environment did not step (nothing ran, so no time, timeout or abort). */
  private async recordWithoutStep(fields: Pick<Turn, "action" | "observation" | "ok" | "invalid" | "reward">, who: ActorRef, startedAt: Date): Promise<Turn> {
    await this.ensureStored();
    this.firstActionAt ??= startedAt.getTime();
    const turn: Turn = { ...this.base(this.turns.length, who, startedAt), ...fields, durationMs: 0, timedOut: false, aborted: false };
    await this.env.record(this.id, turn);
    this.turns.push(turnView(turn));
    return turn;
  }

  /** The reward a submit would get now, without ending the episode. */
  async evaluate(arg?: string): Promise<SubmitResult> {
    this.assertRunning();
    return this.env.evaluate(arg);
  }

  /**
   * Scores and ends the episode. A submit the player typed or chose (`typed`) is stored as their
   * last turn, unless the turn limit is reached: then it is the forced submit, scored but not a
   * turn (lib/episodes/rules.ts). `typed.observation` is what the turn records (default: the
   * agent's observation as scored).
   */
  async submit(
    arg: string | undefined,
    typed?: ActorRef & { action: string; observation?: (r: SubmitResult) => string; startedAt?: Date },
    options: Partial<Pick<EpisodeEnd, "unclaimed">> & {
      /**
       * Store the forced submit as a last turn by `who` that the count leaves out (InterCode's
       * ReAct under profile intercode: `react.forced-submit` = appended-not-counted): it observes
       * what the episode last showed, with the final reward, and the end carries turnsTaken.
       */
      storeForced?: ActorRef;
      /**
       * The episode's reward is the best of its turns' rewards and the final score, not the final
       * score alone (InterCode's Plan & Solve logged summary.max_reward: `plan-solve.episode-reward`).
       */
      bestTurn?: boolean;
    } = {},
  ): Promise<{ result: SubmitResult; forced: boolean; turn: Turn | null; end: EpisodeEnd }> {
    this.assertRunning();
    await this.ensureStored();
    const startedAt = typed?.startedAt ?? new Date();
    const result = await this.env.submit(arg);
    const forced = isForcedSubmit(this.turns.length, this.turnLimit);
    const { storeForced, bestTurn, ...rest } = options;
    const end: Partial<Pick<EpisodeEnd, "unclaimed" | "turnsTaken">> = rest;
    let turn: Turn | null = null;
    if (forced && storeForced) {
      turn = {
        ...this.base(this.turns.length, storeForced, new Date()),
        action: "submit",
        observation: result.agentObservation,
        ok: true,
        reward: result.reward,
        durationMs: 0,
        timedOut: false,
        aborted: false,
      };
      await this.env.record(this.id, turn);
      end.turnsTaken = this.turns.length;
    }
    if (typed && !forced) {
      turn = {
        ...this.base(this.turns.length, typed, startedAt),
        action: typed.action,
        observation: typed.observation ? typed.observation(result) : result.agentObservation,
        ok: true,
        reward: result.reward,
        durationMs: Date.now() - startedAt.getTime(),
        timedOut: false,
        aborted: false,
      };
      await this.env.record(this.id, turn);
      this.turns.push(turnView(turn));
    }
    const reward = bestTurn ? Math.max(result.reward, ...this.turns.map((t) => t.reward ?? -Infinity)) : result.reward;
    const success = reward === 1;
    const episodeEnd: EpisodeEnd = {
      status: "submitted",
      reward,
      breakdown: result.breakdown,
      success,
      solvedAtTurn: success ? (this.solvedAtTurn ?? this.turns.length) : null,
      goldObservation: result.goldObservation,
      agentObservation: result.agentObservation,
      ...end,
    };
    await this.finish(episodeEnd);
    return { result, forced, turn, end: episodeEnd };
  }

  /**
   * Ends the episode without a score. An episode never stored stays unstored, unless `keep` says
   * the abandon is itself a result (a study's Skip).
   */
  async abandon(reason?: string, options: { keep?: boolean; reward?: number | null; unclaimed?: EpisodeEnd["unclaimed"] } = {}): Promise<EpisodeEnd> {
    if (options.keep) await this.ensureStored();
    return this.end({
      status: "abandoned",
      reward: options.reward ?? null,
      success: false,
      solvedAtTurn: null,
      errorReason: reason,
      unclaimed: options.unclaimed,
    });
  }

  /** The sandbox or the model failed: the episode ends with status error. */
  async fail(reason: string, unclaimed?: EpisodeEnd["unclaimed"]): Promise<EpisodeEnd> {
    return this.end({ status: "error", reward: null, success: false, solvedAtTurn: null, errorReason: reason, unclaimed });
  }

  /** The episode was stopped: it is left interrupted (it may be resumed by replay). */
  async interrupt(reason: string, unclaimed?: EpisodeEnd["unclaimed"]): Promise<EpisodeEnd> {
    return this.end({ status: "interrupted", reward: null, success: false, solvedAtTurn: null, errorReason: reason, unclaimed });
  }

  /** Closes the sandbox; the session is done with it. Safe to call twice. */
  async close(): Promise<void> {
    await this.env.close();
  }

  private async end(end: EpisodeEnd): Promise<EpisodeEnd> {
    if (this.status !== "running") return end;
    await this.finish(end);
    return end;
  }

  private async finish(end: EpisodeEnd): Promise<void> {
    // Set first: a second end (an abandon racing a failure) must not write twice.
    this.status = end.status;
    if (this.stored) await this.env.finish(this.id, end);
  }

  private assertRunning(): void {
    if (this.status !== "running") throw new ConflictError(`the episode is ${this.status}: open a new one`);
  }

  /** Running and below the turn limit: another turn may be played. */
  private assertCanAct(): void {
    this.assertRunning();
    if (this.limitReached) throw new ConflictError(`the turn limit (${this.turnLimit}) is reached: submit to score the episode`);
  }

  private base(index: number, who: ActorRef, startedAt: Date) {
    const m = who.meta;
    return {
      ...MODEL_FIELDS_EMPTY,
      index,
      actor: who.actor,
      source: who.source,
      startedAt,
      ...(m
        ? { thought: m.thought, rawReply: m.rawReply, tokensIn: m.tokensIn, tokensOut: m.tokensOut, latencyMs: Math.round(m.latencyMs), costUsd: m.costUsd }
        : {}),
      ...(who.messages ? { messages: who.messages } : {}),
    };
  }
}
