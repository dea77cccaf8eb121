import "server-only";
import type { Task } from "@/lib/datasets/types";
import type { Environment, EnvironmentOptions, SubmitResult } from "@/lib/env/types";
import { fidelityOf, type EnvFidelity } from "@/lib/env/fidelity";
import { DEFAULT_PROFILE, type ProfileName } from "@/lib/env/profiles";
import { EpisodeController, type Gate } from "@/lib/episodes/controller";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import type { ScoreStep } from "@/lib/episodes/recording-env";
import { EpisodeSession, type ActorRef, type TurnMeta } from "@/lib/episodes/session";
import { isSubmit } from "@/lib/env/submit";
import type { EpisodeEnd, TranscriptEntry, Turn } from "@/lib/episodes/turn";
import type { AgentEvent, EpisodeOutcome } from "@/lib/episodes/agent-event";
import { asStudioError } from "@/lib/errors";
import { callModel, type RetryPolicy } from "./call-model";
import { dropTurns, turnsToDrop, type ChatMessage } from "./conversation";
import { estimateCost, type ResolvedModel } from "./models";
import { isSkip, parseAction, type ParsedReply } from "./parse-action";
import { cutObservation } from "./policies/prompts";
import { getPolicy } from "./policies/registry";
import type { PolicyName, PolicySession, TurnFeedback } from "./policies/types";

/** Characters of an observation the model is shown (the store keeps it whole). */
export const OBSERVATION_BUDGET = 2_000;

export interface RunEpisodeOptions {
  task: Task;
  model: ResolvedModel;
  policy: PolicyName;
  /** Turn limit (default 10; Single Turn always 1). */
  maxTurns?: number;
  handicap?: boolean;
  /** Plan & Solve's refine turns (default 0). */
  refineTurns?: number;
  recorder: EpisodeRecorder;
  /** An environment to use (closed at the end); otherwise one is created for the task. */
  environment?: Environment;
  envOptions?: EnvironmentOptions;
  controller?: EpisodeController;
  onEvent?: (event: AgentEvent) => void;
  /** Stream model replies (reply-delta events). */
  stream?: boolean;
  retry?: Partial<RetryPolicy>;
  observationBudget?: number;
  runId?: string;
  mode?: "eval" | "play";
}

async function createEnv(task: Task, options?: EnvironmentOptions): Promise<Environment> {
  const { createEnvironment } = await import("@/lib/env/index");
  return createEnvironment(task.env, options);
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

/**
 * Runs one episode of a model under a policy, over one session (lib/episodes/session.ts): every
 * turn is written through `recorder` before it is reported. Never throws for the model's or the
 * task's failures: a provider that fails past its retries ends the episode with status "error"; a
 * stop leaves it "interrupted". Throws only when the store itself fails.
 */
export async function runEpisode(options: RunEpisodeOptions): Promise<EpisodeOutcome> {
  return new ModelEpisode(options).play();
}

/** Outcome of a step of the loop: go on with the next turn, or the episode ended. */
type Next = "next" | "limit" | EpisodeOutcome;

/**
 * One model episode as small steps over a session: start, plan (Plan & Solve), then turn after
 * turn (the model's, or a person's after a take-over), and the end. The policy decides what the
 * model is told; this class runs the model, the session and the store in order.
 */
class ModelEpisode {
  private readonly t0 = performance.now();
  private readonly cpu0 = process.cpuUsage();
  private readonly controller: EpisodeController;
  private readonly emit: (event: AgentEvent) => void;
  private readonly profile: ProfileName;
  private readonly policy: PolicySession;
  private session: EpisodeSession | null = null;
  private readonly stats = { tokensIn: 0, tokensOut: 0, costUsd: 0, modelMs: 0, failedTurns: 0, cpuModelMs: 0 };
  private lastFunction: string | undefined;
  /** The policy has nothing more to ask (a person finished its last step). */
  private policyDone = false;
  /** The conversation with the model as sent (the policy's messages and the replies). */
  private readonly messages: ChatMessage[] = [];
  /** The next user message. */
  private pending: string;
  /** What a plan reply adds to the first turn's record. */
  private carried = { tokensIn: 0, tokensOut: 0, latencyMs: 0, raw: "", thought: "" };
  /** The conversation, each message once, seq = position (0: the system prompt). */
  private readonly transcript: TranscriptEntry[] = [];
  /** Messages before this are stored with a turn. */
  private claimed = 0;

  constructor(private readonly options: RunEpisodeOptions) {
    this.controller = options.controller ?? new EpisodeController();
    this.emit = options.onEvent ?? (() => {});
    this.profile = options.envOptions?.profile ?? DEFAULT_PROFILE;
    this.policy = getPolicy(options.policy).start({
      profile: this.profile,
      task: options.task,
      env: options.task.env,
      maxTurns: Math.max(1, options.maxTurns ?? 10),
      handicap: options.handicap ?? false,
      refineTurns: options.refineTurns ?? 0,
    });
    this.pending = this.policy.opening;
  }

  private get task(): Task {
    return this.options.task;
  }

  /** What differs between environments (lib/env/fidelity.ts). */
  private get rules(): EnvFidelity {
    return fidelityOf(this.options.task);
  }

  private get turns(): number {
    return this.session?.turns.length ?? 0;
  }

  async play(): Promise<EpisodeOutcome> {
    try {
      await this.start();
      if (this.policy.planning) {
        const planned = await this.plan();
        if (planned !== "next") return planned;
      }
      while (this.turns < this.policy.maxTurns) {
        const next = await this.turn(await this.controller.next());
        if (next === "limit") break;
        if (next !== "next") return next;
      }
      return await this.submit(undefined, undefined, this.policy.forcedSubmit === "appended-not-counted");
    } catch (err) {
      return await this.failed(err);
    } finally {
      await this.session?.close();
    }
  }

  /** Stores the episode; the sandbox starts while the model thinks about its first reply. */
  private async start(): Promise<void> {
    const { task, model } = this.options;
    this.session = await EpisodeSession.open({
      task,
      recorder: this.options.recorder,
      start: {
        player: { kind: "model", model: model.info.id, policy: this.options.policy },
        turnLimit: this.policy.maxTurns,
        mode: this.options.mode ?? "eval",
        feedback: this.policy.stopOnSolved || (this.options.refineTurns ?? 0) > 0 ? "reward" : "none",
        runId: this.options.runId,
      },
      // A sandbox that fails is recorded as the episode's error when the first action needs it.
      environment: async () => this.options.environment ?? (await createEnv(task, this.options.envOptions)),
      storeAt: "open",
    });
    this.emit({
      type: "episode-start",
      episodeId: this.session.id,
      taskId: task.id,
      policy: this.options.policy,
      model: model.info.id,
      maxTurns: this.policy.maxTurns,
    });
  }

  /** Plan & Solve's first reply: a plan, carried into the first turn's record. */
  private async plan(): Promise<"next" | EpisodeOutcome> {
    const gate = await this.controller.next();
    if (gate.kind === "stop") return this.interrupted("stopped before the plan");
    if (gate.kind === "human") gate.resolve(null);
    const r = await this.ask(0);
    const { message, steps } = this.policy.planning!.accept(r.text);
    // The transcript keeps the plan; the conversation sent on may leave it out (the model then has the steps one by one).
    if (this.policy.planning!.leavesOutReply) this.messages.pop();
    this.emit({ type: "plan", steps, rawReply: r.text });
    this.pending = message;
    this.carried = {
      tokensIn: r.tokensIn,
      tokensOut: r.tokensOut,
      latencyMs: r.latencyMs,
      raw: r.text,
      thought: `Plan:\n${steps.map((s, i) => `${i + 1}. ${s}`).join("\n")}`,
    };
    return "next";
  }

  /** One turn, whoever's it is. */
  private async turn(gate: Gate): Promise<Next> {
    if (gate.kind === "stop") return this.interrupted("stopped");
    if (gate.kind === "human") return this.humanTurn(gate);
    if (this.policyDone) return "limit";
    return this.modelTurn();
  }

  /** A person's action after a take-over, run in the same session with where it was typed. */
  private async humanTurn(gate: Extract<Gate, { kind: "human" }>): Promise<Next> {
    const index = this.turns;
    const startedAt = new Date();
    const who: ActorRef = { actor: "human", source: gate.source };
    try {
      this.emit({ type: "turn-start", index, actor: "human" });
      const parsed = parseAction(isSubmit(gate.action) || isSkip(gate.action) ? gate.action : "```\n" + gate.action + "\n```");
      if (parsed.kind === "skip") {
        gate.resolve(null);
        return await this.abandoned("skipped by the person who took over");
      }
      if (parsed.kind === "submit") {
        const out = await this.submit(parsed.arg, { ...who, startedAt });
        gate.resolve(null);
        return out;
      }
      this.emit({ type: "action", index, actor: "human", action: gate.action, thought: null });
      const { turn, feedback } = await this.act(gate.action, who, startedAt);
      gate.resolve(turn);
      // The model will see the person's turn the way the policy shows its own turns.
      const next = this.policy.afterTurn(index, feedback);
      if (next.kind === "continue") this.pending = [this.pending, next.message].filter(Boolean).join("\n\n");
      else this.policyDone = true;
      if (turn.reward === 1 && this.policy.stopOnSolved) return await this.submit();
      return "next";
    } catch (err) {
      gate.reject(err);
      throw err;
    }
  }

  /** The model's turn: ask, parse the reply, then act, submit, skip or record an invalid reply. */
  private async modelTurn(): Promise<Next> {
    const index = this.turns;
    const startedAt = new Date();
    this.emit({ type: "turn-start", index, actor: "model" });
    const pendingBefore = this.pending;
    const r = await this.ask(index);
    // Taken over (or stopped) while the model was thinking: its late reply is not a turn. The
    // conversation goes back to where it was (the model is asked again after a hand-back); the
    // tokens are carried into the model's next turn so the cost stays counted.
    if (this.controller.state === "human" || this.controller.state === "stopped") {
      this.messages.splice(-2, 2);
      this.pending = pendingBefore;
      this.carried = {
        ...this.carried,
        tokensIn: this.carried.tokensIn + r.tokensIn,
        tokensOut: this.carried.tokensOut + r.tokensOut,
        latencyMs: this.carried.latencyMs + r.latencyMs,
      };
      this.emit({ type: "reply-dropped", index });
      return "next";
    }
    const parsed: ParsedReply = parseAction(r.text, this.policy.parse);
    const c = this.carried;
    const tokensIn = r.tokensIn + c.tokensIn;
    const tokensOut = r.tokensOut + c.tokensOut;
    const meta: TurnMeta = {
      rawReply: c.raw ? `${c.raw}\n\n---\n\n${r.text}` : r.text,
      thought: [c.thought, parsed.thought].filter(Boolean).join("\n\n") || null,
      tokensIn,
      tokensOut,
      latencyMs: r.latencyMs + c.latencyMs,
      costUsd: estimateCost(this.options.model.info, tokensIn, tokensOut),
    };
    this.carried = { tokensIn: 0, tokensOut: 0, latencyMs: 0, raw: "", thought: "" };
    const who: ActorRef = { actor: "model", source: "model", meta };

    if (parsed.kind === "skip") return this.abandoned("the model skipped the task");
    if (parsed.kind === "submit") {
      if (this.rules.wrongFlagContinues(this.profile)) return this.flagTurn(parsed.arg, who, startedAt);
      return this.submit(parsed.arg, { ...who, startedAt });
    }
    if (parsed.kind === "invalid") {
      this.stats.failedTurns++;
      const turn = await this.withClaim(who, (w) => this.session!.invalid(parsed.reason, w, startedAt));
      this.emit({ type: "turn-end", turn });
      const next = this.policy.afterTurn(index, { actor: "model", action: null, observation: "", ok: false, invalidReason: parsed.reason });
      if (next.kind === "stop") return "limit";
      this.pending = next.message;
      return "next";
    }
    this.emit({ type: "action", index, actor: "model", action: parsed.action, thought: meta.thought });
    const { turn, feedback } = await this.act(parsed.action, who, startedAt, parsed.written);
    if (turn.reward === 1 && this.policy.stopOnSolved) return this.submit();
    const next = this.policy.afterTurn(index, feedback);
    if (next.kind === "stop") return "limit";
    this.pending = next.message;
    return "next";
  }

  /**
   * A CTF flag under `ctf.wrong-flag` = turn-and-continue: a correct flag submits (the episode
   * ends, as any submit); a wrong one is stored as a turn with its verdict and reward 0, and the
   * model is told the verdict like any observation.
   */
  private async flagTurn(flag: string | undefined, who: ActorRef, startedAt: Date): Promise<Next> {
    const index = this.turns;
    // Under flag-verdict the flag is the word after `submit` (as the environment's own submit reads it), and the verdict is the observation.
    const verdict = this.rules.flagVerdict(this.profile);
    const arg = verdict ? (flag ?? "").trim().split(" ")[0] : this.submitArg(flag);
    const check = await this.session!.evaluate(arg);
    if (check.reward >= 1) return this.submit(flag, { ...who, startedAt });
    const action = flag ? `submit ${flag}` : "submit";
    const observation = verdict ? "The submitted flag is incorrect." : (arg ?? "");
    this.emit({ type: "action", index, actor: who.actor, action, thought: who.meta?.thought ?? null });
    const turn = await this.withClaim(who, (w) => this.session!.scoredWithoutRun(action, observation, check.reward, w, startedAt));
    this.emit({ type: "turn-end", turn });
    const next = this.policy.afterTurn(index, { actor: who.actor, action, observation, ok: true });
    if (next.kind === "stop") return "limit";
    this.pending = next.message;
    return "next";
  }

  /** Asks the model for its next reply (the pending message first), counting tokens, cost and time. */
  private async ask(index: number) {
    const { model, stream, retry } = this.options;
    const system = this.policy.system;
    if (this.transcript.length === 0) this.transcript.push({ seq: 0, role: "system", content: system });
    this.messages.push({ role: "user", content: this.pending });
    this.transcript.push({ seq: this.transcript.length, role: "user", content: this.pending });
    this.pending = "";
    const s = performance.now();
    const c = process.cpuUsage();
    try {
      const dropped = turnsToDrop(system, this.messages, model.info.contextWindow - model.info.maxOutputTokens);
      const r = await callModel(model, {
        system,
        messages: dropTurns(this.messages, dropped),
        stream,
        onDelta: stream ? (text) => this.emit({ type: "reply-delta", index, text }) : undefined,
        signal: this.controller.signal,
        retry,
        headers: { "x-ic-task": this.task.id },
      });
      this.messages.push({ role: "assistant", content: r.text });
      this.transcript.push({ seq: this.transcript.length, role: "assistant", content: r.text, ...(dropped ? { droppedTurns: dropped } : {}) });
      this.stats.tokensIn += r.tokensIn;
      this.stats.tokensOut += r.tokensOut;
      this.stats.costUsd += estimateCost(model.info, r.tokensIn, r.tokensOut);
      return r;
    } finally {
      this.stats.modelMs += performance.now() - s;
      this.stats.cpuModelMs += cpuMs(c);
    }
  }

  /** Runs an action in the session, scored as the policy asks; returns the turn and what the model will be told. */
  private async act(action: string, who: ActorRef, startedAt: Date, logged?: string): Promise<{ turn: Turn; feedback: TurnFeedback }> {
    const index = this.turns;
    const task = this.task;
    const rules = this.rules;
    const defined = rules.definedFunctions(action);
    if (defined.length > 0) this.lastFunction = rules.testedFunction(task, defined);
    let testsPassed: boolean | undefined;
    const score: ScoreStep | undefined = this.policy.scoresTurn(index)
      ? async (env, step) => {
          if (rules.turnScoring === "none") return { reward: null };
          if (rules.turnScoring === "state") return { reward: (await env.evaluate()).reward };
          // Profile intercode scores every turn (an action without a def scores 0 untested).
          if (defined.length === 0 && !rules.scoresTurnWithoutFunction(this.profile)) return { reward: null };
          const ev = await env.evaluate(this.lastFunction);
          const wording = rules.feedbackWording(this.profile, this.options.policy);
          if (wording) {
            // The model sees only InterCode's text for the turn, and it is what is stored.
            return { reward: ev.reward, observation: rules.rewrittenObservation(wording, ev, task) ?? step.observation };
          }
          testsPassed = ev.reward === 1;
          return { reward: ev.reward };
        }
      : undefined;
    const { turn, step } = await this.withClaim(who, (w) =>
      this.session!.act(action, w, {
        signal: this.controller.signal,
        stop: this.controller.signal,
        onOutput: (chunk) => this.emit({ type: "output", index, chunk }),
        score,
        startedAt,
        logged,
      }),
    );
    if (!step.ok) this.stats.failedTurns++;
    this.emit({ type: "turn-end", turn });
    const feedback: TurnFeedback = {
      actor: who.actor,
      action,
      observation: cutObservation(turn.observation, this.options.observationBudget ?? OBSERVATION_BUDGET),
      ok: step.ok,
      reward: testsPassed === undefined && !rules.showsTestVerdict ? (turn.reward ?? undefined) : undefined,
      testsPassed,
    };
    return { turn, feedback };
  }

  /**
   * A model turn carries the messages its calls added (a person's turn reaches the model in the
   * next prompt); when the turn is not stored they stay unclaimed for the episode's end.
   */
  private async withClaim<T>(who: ActorRef, f: (who: ActorRef) => Promise<T>): Promise<T> {
    if (who.actor !== "model") return f(who);
    const mark = this.claimed;
    const messages = this.claim();
    try {
      return await f(messages ? { ...who, messages } : who);
    } catch (err) {
      this.claimed = mark;
      throw err;
    }
  }

  private claim(): TranscriptEntry[] | undefined {
    if (this.claimed === this.transcript.length) return undefined;
    const added = this.transcript.slice(this.claimed);
    this.claimed = this.transcript.length;
    return added;
  }

  private unclaimed(): EpisodeEnd["unclaimed"] {
    const messages = this.claim();
    return messages ? { turnIndex: this.turns, messages } : undefined;
  }

  private submitArg(explicit?: string): string | undefined {
    return this.rules.submitArg(this.task, explicit, this.lastFunction);
  }

  /**
   * Scores the episode; a submit the player chose (`typed`) is stored as their last turn. The
   * submit forced at the turn limit is stored as a turn left out of the count when the policy
   * says so (`storeForced`: InterCode's ReAct under profile intercode).
   */
  private async submit(explicit?: string, typed?: ActorRef & { startedAt: Date }, storeForced = false): Promise<EpisodeOutcome> {
    const session = this.session!;
    const arg = this.submitArg(explicit);
    // Under ctf.submit-observation = flag-verdict the turn keeps the environment's verdict, as InterCode logged it.
    const verdict = this.rules.flagVerdict(this.profile);
    const run = (who?: ActorRef & { startedAt: Date }) =>
      session.submit(
        arg,
        who && {
          ...who,
          action: explicit ? `submit ${explicit}` : "submit",
          observation: (r: SubmitResult) => (verdict ? r.agentObservation : `Submitted: reward ${r.reward.toFixed(2)}`),
        },
        { ...(storeForced ? { storeForced: { actor: "model" as const, source: "model" as const } } : {}), bestTurn: this.policy.bestTurnReward },
      );
    const r = typed ? await this.withClaim(typed, (w) => run({ ...w, startedAt: typed.startedAt })) : await run();
    if (r.turn) this.emit({ type: "turn-end", turn: r.turn });
    return this.outcome(r.end);
  }

  private async abandoned(reason: string): Promise<EpisodeOutcome> {
    return this.outcome(await this.session!.abandon(reason, { reward: 0, unclaimed: this.unclaimed() }));
  }

  private async interrupted(reason: string): Promise<EpisodeOutcome> {
    return this.outcome(await this.session!.interrupt(reason, this.unclaimed()));
  }

  /** The loop failed: a stop ends it interrupted, anything else as an error (a store failure is thrown). */
  private async failed(err: unknown): Promise<EpisodeOutcome> {
    if (this.controller.signal.aborted)
      return this.interrupted("stopped").catch(() => this.outcome({ status: "interrupted", reward: null, success: false, solvedAtTurn: null }, false));
    const e = asStudioError(err);
    // Without a store to write to (or an episode to write into) the caller must see the failure.
    if (e.code === "storage" || !this.session?.stored) throw e;
    return this.outcome(await this.session.fail(`${e.code}: ${e.message}`, this.unclaimed()));
  }

  private outcome(end: EpisodeEnd, announce = true): EpisodeOutcome {
    const t = this.session?.timings ?? { envMs: 0, storeMs: 0, cpuStoreMs: 0 };
    const s = this.stats;
    const outcome: EpisodeOutcome = {
      episodeId: this.session?.id ?? "",
      status: end.status,
      reward: end.reward,
      success: end.success,
      turns: this.turns,
      failedTurns: s.failedTurns,
      errorReason: end.errorReason,
      tokensIn: s.tokensIn,
      tokensOut: s.tokensOut,
      costUsd: s.costUsd,
      envMs: t.envMs,
      modelMs: s.modelMs,
      storeMs: t.storeMs,
      totalMs: performance.now() - this.t0,
      cpu: { storeMs: t.cpuStoreMs, modelMs: s.cpuModelMs, totalMs: cpuMs(this.cpu0) },
    };
    if (!announce) return outcome;
    if (end.status === "submitted") this.emit({ type: "submitted", reward: end.reward ?? 0, success: end.success });
    this.emit({ type: "episode-end", outcome });
    return outcome;
  }
}
