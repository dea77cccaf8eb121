import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Task } from "@/lib/datasets/types";
import type { EnvironmentOptions } from "@/lib/env/types";
import { ConflictError, LimitReachedError, NotFoundError } from "@/lib/errors";
import { EpisodeController } from "@/lib/episodes/controller";
import type { AgentEvent, ControllerMode, EpisodeOutcome } from "@/lib/episodes/agent-event";
import { liveEventSchema, type LiveEventInput, type LoggedLiveEvent } from "./events";
import { toLiveEvent } from "./from-engine";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { resolveModel, type AdHocModel } from "@/lib/agent/models";
import { policyNameSchema } from "@/lib/agent/policies/types";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import { runEpisode } from "@/lib/agent/run-episode";
import type { ControlMessage } from "./protocol";

/**
 * Model episodes running in the server for the playground: each has a controller (pause, step,
 * resume, stop, take over, hand back) and a log of its live events (./events.ts, the same
 * vocabulary a person's episode sends) that any number of viewers follow over the websocket from
 * any position (so a reload or a second tab picks up where it is).
 */

export const startAgentSchema = z.object({
  model: z.string().min(1).max(200),
  policy: policyNameSchema.default("try-again"),
  turnLimit: z.number().int().min(1).max(50).default(10),
  handicap: z.boolean().default(false),
  refineTurns: z.number().int().min(0).max(10).default(0),
  /** Start paused (the first turn waits for step or resume). */
  paused: z.boolean().default(false),
});
export type StartAgentInput = z.infer<typeof startAgentSchema>;

/** Most model episodes running at once in one server. */
export const MAX_LIVE_AGENTS = 4;

export interface LiveAgent {
  id: string;
  task: Task;
  /** "play": started on a task page; "run": an episode of a batch run in this server. */
  kind: "play" | "run";
  /** The batch run it belongs to, for kind "run". */
  runId: string | null;
  controller: EpisodeController;
  log: LoggedLiveEvent[];
  done: Promise<EpisodeOutcome | null>;
  finished: boolean;
  episodeId: string | null;
  subscribe(listener: (e: LoggedLiveEvent) => void): () => void;
}

type Registry = { agents: Map<string, LiveAgent>; byEpisode: Map<string, string> };
const registry: Registry = ((globalThis as Record<string, unknown>).__icStudioAgents ??= { agents: new Map(), byEpisode: new Map() }) as Registry;
registry.byEpisode ??= new Map();

/** How long a finished agent's log stays for late viewers (a reload after the end still shows it). */
const KEEP_MS = { play: 10 * 60_000, run: 2 * 60_000 };

/**
 * Registers a model episode so any number of viewers can follow it from any position and control
 * it, at its id or its stored episode's id (the watch page's URL names it, so a reload or a second
 * tab reattaches). Returns the agent, the `onEvent` to give runEpisode, and `end` for when it ends.
 */
export function trackAgent(
  task: Task,
  controller: EpisodeController,
  meta: { kind: "play" | "run"; runId?: string },
): { agent: LiveAgent; onEvent: (e: AgentEvent) => void; fail: (message: string) => void; end: () => void } {
  const listeners = new Set<(e: LoggedLiveEvent) => void>();
  const log: LoggedLiveEvent[] = [];
  const push = (event: LiveEventInput) => {
    // Checked here, once, against the vocabulary every viewer parses.
    const entry: LoggedLiveEvent = { type: "logged", seq: log.length, event: liveEventSchema.parse(event) };
    log.push(entry);
    for (const l of listeners) l(entry);
  };
  const agent: LiveAgent = {
    id: randomUUID(),
    task,
    kind: meta.kind,
    runId: meta.runId ?? null,
    controller,
    log,
    finished: false,
    episodeId: null,
    done: Promise.resolve(null),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  push({ type: "mode", mode: controller.state });
  const unwatch = controller.onChange((mode) => push({ type: "mode", mode }));
  registry.agents.set(agent.id, agent);
  return {
    agent,
    onEvent: (e) => {
      if (e.type === "episode-start") {
        agent.episodeId = e.episodeId;
        registry.byEpisode.set(e.episodeId, agent.id);
      }
      const live = toLiveEvent(e);
      if (live) push(live);
    },
    fail: (message) => push({ type: "failed", message }),
    end: () => {
      if (agent.finished) return;
      agent.finished = true;
      unwatch();
      // Keep the log a while for late viewers, then forget the agent.
      setTimeout(() => {
        registry.agents.delete(agent.id);
        if (agent.episodeId) registry.byEpisode.delete(agent.episodeId);
      }, KEEP_MS[agent.kind]).unref();
    },
  };
}

/**
 * Starts a model on a task. The episode is stored like any other (mode "play", player kind model).
 * @throws LimitReachedError when MAX_LIVE_AGENTS are running; BadInputError/NotFoundError for the model.
 */
export function startAgent(
  task: Task,
  input: StartAgentInput,
  options: { adhoc?: AdHocModel; envOptions?: EnvironmentOptions; recorder?: EpisodeRecorder } = {},
): LiveAgent {
  const running = [...registry.agents.values()].filter((a) => a.kind === "play" && !a.finished).length;
  if (running >= MAX_LIVE_AGENTS) throw new LimitReachedError(`${MAX_LIVE_AGENTS} model episodes are already running; stop one first`);
  const model = resolveModel(input.model, options.adhoc ? { adhoc: options.adhoc } : {});
  const controller = new EpisodeController({ paused: input.paused });
  const { agent, onEvent, fail, end } = trackAgent(task, controller, { kind: "play" });
  agent.done = runEpisode({
    task,
    model,
    policy: input.policy,
    maxTurns: input.turnLimit,
    handicap: input.handicap,
    refineTurns: input.refineTurns,
    recorder: options.recorder ?? dbRecorder(),
    controller,
    envOptions: options.envOptions,
    stream: true,
    mode: "play",
    onEvent,
  })
    .catch((err: unknown) => {
      fail(err instanceof Error ? err.message : String(err));
      return null;
    })
    .finally(end);
  return agent;
}

/**
 * Follows a live model episode's log from entry `from`: the entries so far at once, then each as
 * it comes, until the episode ends. Returns the way to stop following. @throws NotFoundError
 */
export function watchAgent(id: string, from: number, listener: (entry: LoggedLiveEvent) => void): () => void {
  const agent = getAgent(id);
  for (const entry of agent.log.slice(from)) listener(entry);
  return agent.finished ? () => {} : agent.subscribe(listener);
}

/** The live agent with this id, or the one playing the stored episode with this id. @throws NotFoundError */
export function getAgent(id: string): LiveAgent {
  const a = registry.agents.get(id) ?? registry.agents.get(registry.byEpisode.get(id) ?? "");
  if (!a) throw new NotFoundError(`live model episode ${id} (it ended more than a few minutes ago, or the server restarted)`);
  return a;
}

/** Whether a live agent (or the one playing the stored episode) with this id is known here. */
export function isAgentLive(id: string): boolean {
  return registry.agents.has(id) || registry.byEpisode.has(id);
}

/** The live agents of a batch run, by stored episode id (the run page links its running episodes to them). */
export function listRunAgents(runId: string): LiveAgent[] {
  return [...registry.agents.values()].filter((a) => a.runId === runId);
}

/**
 * Applies a control to a running agent. For "action" (a person's turn after takeOver) resolves once
 * the turn is stored.
 * @throws ConflictError when the episode has finished or is not in the right mode.
 */
export async function controlAgent(id: string, control: Pick<ControlMessage, "op" | "text" | "source">): Promise<{ mode: ControllerMode }> {
  const a = getAgent(id);
  if (a.finished) throw new ConflictError("the episode has ended");
  const c = a.controller;
  switch (control.op) {
    case "pause":
      c.pause();
      break;
    case "resume":
      c.resume();
      break;
    case "step":
      c.step();
      break;
    case "stop":
      c.stop();
      break;
    case "takeOver":
      c.takeOver();
      break;
    case "handBack":
      c.handBack();
      break;
    case "action":
      await c.humanAction(control.text ?? "", control.source);
      break;
  }
  return { mode: c.state };
}
