import "server-only";
import type { Task } from "@/lib/datasets/types";
import type { Environment, EnvironmentOptions, SubmitResult } from "@/lib/env/types";
import type { HumanTurnSource } from "@/lib/episodes/rules";
import { isSubmit } from "@/lib/episodes/submit";
import { asStudioError } from "@/lib/errors";
import { callModel, type RetryPolicy } from "./call-model";
import { EpisodeController } from "./controller";
import { dropTurns, turnsToDrop, type ChatMessage } from "./conversation";
import { estimateCost, type ResolvedModel } from "./models";
import { DEFAULT_PYTHON_FEEDBACK, rewrittenPythonObservation } from "@/lib/env/intercode-loop";
import { DEFAULT_PROFILE, profileValue } from "@/lib/env/profiles";
import { isSkip, parseAction, type ParsedReply } from "./parse-action";
import { cutObservation } from "./policies/prompts";
import { getPolicy } from "./policies/registry";
import type { PolicyName, PolicySession, TurnFeedback } from "./policies/types";
import type { AgentTurn, EpisodeEnd, EpisodeEndStatus, EpisodeRecorder, TranscriptEntry } from "./recorder";

/** Characters of an observation the model is shown (the store keeps it whole). */
export const OBSERVATION_BUDGET = 2_000;

/** Events a running episode emits, in order. Turn events come after the turn is in the store. */
export type AgentEvent =
  | { type: "episode-start"; episodeId: string; taskId: string; policy: PolicyName; model: string; maxTurns: number }
  | { type: "plan"; steps: string[]; rawReply: string }
  | { type: "turn-start"; index: number; actor: "model" | "human" }
  | { type: "reply-delta"; index: number; text: string }
  | { type: "action"; index: number; actor: "model" | "human"; action: string; thought: string | null }
  | { type: "output"; index: number; chunk: string }
  | { type: "turn-end"; turn: AgentTurn }
  | { type: "submitted"; reward: number; success: boolean }
  | { type: "episode-end"; outcome: EpisodeOutcome };

export interface EpisodeOutcome {
  episodeId: string;
  status: EpisodeEndStatus;
  reward: number | null;
  success: boolean;
  turns: number;
  /** Turns whose action failed to run or whose reply had no action. */
  failedTurns: number;
  errorReason?: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** Time spent in the environment (actions, scoring, reset, submit), ms. */
  envMs: number;
  /** Time spent waiting for the model, ms. */
  modelMs: number;
  /** Time spent writing to the store, ms. */
  storeMs: number;
  totalMs: number;
  /**
   * Process CPU time (user + system, ms) spent in the store writes, the model calls, and the whole
   * episode. Only meaningful when one episode runs at a time (the benchmark's harness figures).
   */
  cpu: { storeMs: number; modelMs: number; totalMs: number };
}

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

interface TurnMeta {
  rawReply: string;
  thought: string | null;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
}

const DEF_RE = /^def[ \t]+([A-Za-z_]\w*)[ \t]*\(/gm;

/** The functions an action defines at top level, in order. */
export function definedFunctions(action: string): string[] {
  return [...action.matchAll(DEF_RE)].map((m) => m[1]!);
}

async function createEnv(task: Task, options?: EnvironmentOptions): Promise<Environment> {
  const { createEnvironment } = await import("@/lib/env/index");
  return createEnvironment(task.env, options);
}

/**
 * Runs one episode of a model under a policy, recording by wrapping: every turn is written
 * through `recorder` before it is reported. Never throws for the model's or the task's failures:
 * a provider that fails past its retries ends the episode with status "error"; a stop leaves it
 * "interrupted". Throws only when the store itself fails.
 */
export async function runEpisode(options: RunEpisodeOptions): Promise<EpisodeOutcome> {
  const t0 = performance.now();
  const { task, model, recorder } = options;
  const controller = options.controller ?? new EpisodeController();
  const emit = options.onEvent ?? (() => {});
  const budget = options.observationBudget ?? OBSERVATION_BUDGET;
  const profile = options.envOptions?.profile ?? DEFAULT_PROFILE;
  const session: PolicySession = getPolicy(options.policy).start({
    profile,
    task,
    env: task.env,
    maxTurns: Math.max(1, options.maxTurns ?? 10),
    handicap: options.handicap ?? false,
    refineTurns: options.refineTurns ?? 0,
  });
  const maxTurns = session.maxTurns;
  const contextBudget = model.info.contextWindow - model.info.maxOutputTokens;
  const headers = { "x-ic-task": task.id };

  const stats = { tokensIn: 0, tokensOut: 0, costUsd: 0, envMs: 0, modelMs: 0, storeMs: 0, failedTurns: 0, cpuStoreMs: 0, cpuModelMs: 0 };
  const cpu0 = process.cpuUsage();
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const d = process.cpuUsage(since);
    return (d.user + d.system) / 1000;
  };
  const stored = async <T>(f: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    const c = process.cpuUsage();
    try {
      return await f();
    } finally {
      stats.storeMs += performance.now() - s;
      stats.cpuStoreMs += cpuMs(c);
    }
  };
  const timed = async <T>(f: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    try {
      return await f();
    } finally {
      stats.envMs += performance.now() - s;
    }
  };

  let env: Environment | undefined = options.environment;
  let envReady: Promise<Environment> | null = null;
  /** The environment once created and reset (only time spent waiting for it counts as environment time). */
  const ready = (): Promise<Environment> => timed(() => envReady ?? Promise.reject(new Error("the environment was not started")));
  let episodeId = "";
  let turns = 0;
  /** Where the person's action in hand was typed (set when a person's turn starts). */
  let humanSource: HumanTurnSource = "api";
  let solvedAtTurn: number | null = null;
  let lastFunction: string | undefined;
  /** The policy has nothing more to ask (a person finished its last step). */
  let policyDone = false;

  /** The conversation with the model, each message once, seq = position (0: the system prompt). */
  const transcript: TranscriptEntry[] = [];
  /** Messages before this are stored with a turn. */
  let claimed = 0;
  const claim = (): TranscriptEntry[] | undefined => {
    if (claimed === transcript.length) return undefined;
    const added = transcript.slice(claimed);
    claimed = transcript.length;
    return added;
  };

  const finish = async (end: EpisodeEnd): Promise<EpisodeOutcome> => {
    const unclaimed = claim();
    if (unclaimed) end = { ...end, unclaimed: { turnIndex: turns, messages: unclaimed } };
    if (episodeId) await stored(() => recorder.finishEpisode(episodeId, end));
    const outcome: EpisodeOutcome = {
      episodeId,
      status: end.status,
      reward: end.reward,
      success: end.success,
      turns,
      failedTurns: stats.failedTurns,
      errorReason: end.errorReason,
      tokensIn: stats.tokensIn,
      tokensOut: stats.tokensOut,
      costUsd: stats.costUsd,
      envMs: stats.envMs,
      modelMs: stats.modelMs,
      storeMs: stats.storeMs,
      totalMs: performance.now() - t0,
      cpu: { storeMs: stats.cpuStoreMs, modelMs: stats.cpuModelMs, totalMs: cpuMs(cpu0) },
    };
    if (end.status === "submitted") emit({ type: "submitted", reward: end.reward ?? 0, success: end.success });
    emit({ type: "episode-end", outcome });
    return outcome;
  };

  const submitArg = (explicit?: string): string | undefined => {
    if (task.env === "python") return explicit ?? lastFunction ?? task.functionName;
    if (task.env === "ctf") return explicit ?? "";
    return undefined;
  };

  /** Scores the episode; when the player typed the submit, it is stored as their last turn. */
  const submit = async (explicit?: string, typed?: { actor: "model" | "human"; meta: TurnMeta | null; startedAt: Date }, forced = false): Promise<EpisodeOutcome> => {
    const e = await ready();
    const r: SubmitResult = await timed(() => e.submit(submitArg(explicit)));
    // The policy's forced submit (`react.forced-submit` = appended-not-counted) is stored as a last
    // turn, observing what the episode last showed, and left out of the count.
    const counted = turns;
    if (forced) await recordTurn({ ...turnRecord(turns, "model", "submit", r.agentObservation, true, new Date(), null, 0), reward: r.reward });
    if (typed) {
      const action = explicit ? `submit ${explicit}` : "submit";
      // Under ctf.submit-observation = flag-verdict the turn keeps the environment's verdict, as InterCode logged it.
      const verdict = task.env === "ctf" && profileValue(profile, "ctf.submit-observation") === "flag-verdict";
      const turn = turnRecord(turns, typed.actor, action, verdict ? r.agentObservation : `Submitted: reward ${r.reward.toFixed(2)}`, true, typed.startedAt, typed.meta, 0);
      await recordTurn({ ...turn, reward: r.reward });
      turns++;
    }
    return finish({
      ...(forced ? { turnsTaken: counted } : {}),
      status: "submitted",
      reward: r.reward,
      breakdown: r.breakdown,
      success: r.reward === 1,
      solvedAtTurn: r.reward === 1 ? (solvedAtTurn ?? turns) : null,
      goldObservation: r.goldObservation,
      agentObservation: r.agentObservation,
    });
  };

  try {
    episodeId = await stored(() => recorder.startEpisode({
      task,
      env: task.env,
      model: model.info.id,
      policy: options.policy,
      turnLimit: maxTurns,
      mode: options.mode ?? "eval",
      feedback: session.stopOnSolved || (options.refineTurns ?? 0) > 0 ? "reward" : "none",
      runId: options.runId,
    }));
    emit({ type: "episode-start", episodeId, taskId: task.id, policy: options.policy, model: model.info.id, maxTurns });
    // The sandbox starts while the model thinks about its first reply; a sandbox that fails is
    // recorded as the episode's error when the first action needs it.
    envReady = (async () => {
      env ??= await createEnv(task, options.envOptions);
      await env.reset(task);
      return env;
    })();
    envReady.catch(() => {});

    const messages: ChatMessage[] = [];
    let pending = session.opening;
    let carried = { tokensIn: 0, tokensOut: 0, latencyMs: 0, raw: "", thought: "" };

    const ask = async (index: number) => {
      if (transcript.length === 0) transcript.push({ seq: 0, role: "system", content: session.system });
      messages.push({ role: "user", content: pending });
      transcript.push({ seq: transcript.length, role: "user", content: pending });
      pending = "";
      const s = performance.now();
      const c = process.cpuUsage();
      try {
        const dropped = turnsToDrop(session.system, messages, contextBudget);
        const r = await callModel(model, {
          system: session.system,
          messages: dropTurns(messages, dropped),
          stream: options.stream,
          onDelta: options.stream ? (text) => emit({ type: "reply-delta", index, text }) : undefined,
          signal: controller.signal,
          retry: options.retry,
          headers,
        });
        messages.push({ role: "assistant", content: r.text });
        transcript.push({ seq: transcript.length, role: "assistant", content: r.text, ...(dropped ? { droppedTurns: dropped } : {}) });
        stats.tokensIn += r.tokensIn;
        stats.tokensOut += r.tokensOut;
        stats.costUsd += estimateCost(model.info, r.tokensIn, r.tokensOut);
        return r;
      } finally {
        stats.modelMs += performance.now() - s;
        stats.cpuModelMs += cpuMs(c);
      }
    };

    if (session.planning) {
      const gate = await controller.next();
      if (gate.kind === "stop") return await finish(interrupted("stopped before the plan"));
      if (gate.kind === "human") gate.resolve(null);
      const r = await ask(0);
      const { message, steps } = session.planning.accept(r.text);
      emit({ type: "plan", steps, rawReply: r.text });
      pending = message;
      carried = { tokensIn: r.tokensIn, tokensOut: r.tokensOut, latencyMs: r.latencyMs, raw: r.text, thought: `Plan:\n${steps.map((s, i) => `${i + 1}. ${s}`).join("\n")}` };
    }

    while (turns < maxTurns) {
      const gate = await controller.next();
      if (gate.kind === "stop") return await finish(interrupted("stopped"));
      const index = turns;
      const startedAt = new Date();

      if (gate.kind === "human") {
        humanSource = gate.source;
        try {
          emit({ type: "turn-start", index, actor: "human" });
          const parsed = parseAction(isSubmit(gate.action) || isSkip(gate.action) ? gate.action : "```\n" + gate.action + "\n```");
          if (parsed.kind === "skip") {
            gate.resolve(null);
            return await finish(abandoned());
          }
          if (parsed.kind === "submit") {
            const out = await submit(parsed.arg, { actor: "human", meta: null, startedAt });
            gate.resolve(null);
            return out;
          }
          const action = gate.action;
          emit({ type: "action", index, actor: "human", action, thought: null });
          const { turn, feedback } = await runAction(index, "human", action, startedAt, null);
          turns++;
          gate.resolve(turn);
          // The model will see the person's turn the way the policy shows its own turns.
          const next = session.afterTurn(index, feedback);
          if (next.kind === "continue") pending = [pending, next.message].filter(Boolean).join("\n\n");
          else policyDone = true;
          if (turn.reward === 1 && session.stopOnSolved) return await submit();
        } catch (err) {
          gate.reject(err);
          throw err;
        }
        continue;
      }

      if (policyDone) break;
      emit({ type: "turn-start", index, actor: "model" });
      const r = await ask(index);
      const parsed: ParsedReply = parseAction(r.text, session.parse);
      const meta = {
        rawReply: carried.raw ? `${carried.raw}\n\n---\n\n${r.text}` : r.text,
        thought: [carried.thought, parsed.thought].filter(Boolean).join("\n\n") || null,
        tokensIn: r.tokensIn + carried.tokensIn,
        tokensOut: r.tokensOut + carried.tokensOut,
        latencyMs: r.latencyMs + carried.latencyMs,
      };
      carried = { tokensIn: 0, tokensOut: 0, latencyMs: 0, raw: "", thought: "" };

      if (parsed.kind === "skip") return await finish(abandoned());
      if (parsed.kind === "submit") return await submit(parsed.arg, { actor: "model", meta, startedAt });
      if (parsed.kind === "invalid") {
        const turn = { ...turnRecord(index, "model", "", parsed.reason, false, startedAt, meta, 0), invalid: true };
        stats.failedTurns++;
        await recordTurn(turn);
        turns++;
        const next = session.afterTurn(index, { actor: "model", action: null, observation: "", ok: false, invalidReason: parsed.reason });
        if (next.kind === "stop") break;
        pending = next.message;
        continue;
      }
      emit({ type: "action", index, actor: "model", action: parsed.action, thought: meta.thought });
      const { turn, feedback } = await runAction(index, "model", parsed.action, startedAt, meta);
      turns++;
      if (turn.reward === 1 && session.stopOnSolved) return await submit();
      const next = session.afterTurn(index, feedback);
      if (next.kind === "stop") break;
      pending = next.message;
    }
    return await submit(undefined, undefined, turns >= maxTurns && session.forcedSubmit === "appended-not-counted");
  } catch (err) {
    if (controller.signal.aborted) return await finish(interrupted("stopped")).catch(() => fallbackOutcome("interrupted"));
    const e = asStudioError(err);
    // Without a store to write to (or an episode to write into) the caller must see the failure.
    if (e.code === "storage" || !episodeId) throw e;
    return await finish({ status: "error", reward: null, success: false, solvedAtTurn: null, errorReason: `${e.code}: ${e.message}` });
  } finally {
    if (envReady) await envReady.then((e) => e.close()).catch(() => env?.close().catch(() => {}));
    else await env?.close().catch(() => {});
  }

  function interrupted(reason: string): EpisodeEnd {
    return { status: "interrupted", reward: null, success: false, solvedAtTurn: null, errorReason: reason };
  }
  function abandoned(): EpisodeEnd {
    return { status: "abandoned", reward: 0, success: false, solvedAtTurn: null };
  }
  function fallbackOutcome(status: EpisodeEndStatus): EpisodeOutcome {
    return { episodeId, status, reward: null, success: false, turns, failedTurns: stats.failedTurns, tokensIn: stats.tokensIn, tokensOut: stats.tokensOut, costUsd: stats.costUsd, envMs: stats.envMs, modelMs: stats.modelMs, storeMs: stats.storeMs, totalMs: performance.now() - t0, cpu: { storeMs: stats.cpuStoreMs, modelMs: stats.cpuModelMs, totalMs: cpuMs(cpu0) } };
  }

  async function recordTurn(turn: AgentTurn): Promise<void> {
    // A model turn carries the messages its calls added (a person's turn reaches the model in the next prompt).
    if (turn.actor === "model") {
      const added = claim();
      if (added) turn = { ...turn, messages: added };
    }
    await stored(() => recorder.appendTurn(episodeId, turn));
    emit({ type: "turn-end", turn });
  }

  function turnRecord(
    index: number,
    actor: "model" | "human",
    action: string,
    observation: string,
    ok: boolean,
    startedAt: Date,
    meta: TurnMeta | null,
    actionMs: number,
  ): AgentTurn {
    return {
      index,
      actor,
      source: actor === "model" ? "model" : humanSource,
      action,
      observation,
      ok,
      invalid: false,
      reward: null,
      thought: meta?.thought ?? null,
      rawReply: meta?.rawReply ?? null,
      tokensIn: meta?.tokensIn ?? null,
      tokensOut: meta?.tokensOut ?? null,
      latencyMs: meta ? Math.round(meta.latencyMs) : null,
      actionMs: Math.round(actionMs),
      costUsd: meta ? estimateCost(model.info, meta.tokensIn, meta.tokensOut) : null,
      timedOut: false,
      aborted: false,
      startedAt,
    };
  }

  /** Runs an action, scores it when the policy asks, records the turn; returns what the model will be told. */
  async function runAction(
    index: number,
    actor: "model" | "human",
    action: string,
    startedAt: Date,
    meta: Parameters<typeof turnRecord>[6],
  ): Promise<{ turn: AgentTurn; feedback: TurnFeedback }> {
    const liveEnv = await ready();
    const s = performance.now();
    const step = await timed(() => liveEnv.step(action, { signal: controller.signal, onOutput: (chunk) => emit({ type: "output", index, chunk }) }));
    const actionMs = performance.now() - s;
    if (controller.signal.aborted) throw controller.signal.reason;
    const defined = task.env === "python" ? definedFunctions(action) : [];
    if (defined.length > 0) {
      const wanted = task.env === "python" ? task.functionName : undefined;
      lastFunction = wanted && defined.includes(wanted) ? wanted : defined[defined.length - 1];
    }
    let reward: number | undefined;
    let testsPassed: boolean | undefined;
    let observation = step.observation;
    if (session.scoresTurn(index)) {
      if (task.env === "python") {
        // Profile intercode scores every turn (an action without a def scores 0 untested).
        const everyTurn = profileValue(profile, "python.scored-function") === "last-def-bound-to-gold-name";
        if (defined.length > 0 || everyTurn) {
          const ev = await timed(() => liveEnv.evaluate(lastFunction));
          reward = ev.reward;
          if (options.policy === "try-again" && profileValue(profile, "python.try-again-feedback") === "rewritten-test-feedback") {
            // The model sees only InterCode's text for the turn, and it is what is stored.
            observation = rewrittenPythonObservation(DEFAULT_PYTHON_FEEDBACK, ev, task.tests) ?? observation;
          } else testsPassed = ev.reward === 1;
        }
      } else if (task.env !== "ctf") {
        reward = (await timed(() => liveEnv.evaluate())).reward;
      }
    }
    if (reward === 1 && solvedAtTurn === null) solvedAtTurn = index + 1;
    const turn: AgentTurn = {
      ...turnRecord(index, actor, action, observation, step.ok, startedAt, meta, actionMs),
      reward: reward ?? null,
      timedOut: step.timedOut ?? false,
      aborted: step.aborted ?? false,
    };
    if (!step.ok) stats.failedTurns++;
    await recordTurn(turn);
    const feedback: TurnFeedback = {
      actor,
      action,
      observation: cutObservation(observation, budget),
      ok: step.ok,
      reward: testsPassed === undefined && task.env !== "python" ? reward : undefined,
      testsPassed,
    };
    return { turn, feedback };
  }
}
