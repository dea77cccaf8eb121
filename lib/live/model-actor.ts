import "server-only";
import { z } from "zod";
import { randomUUID } from "node:crypto";
import type { Task } from "@/lib/datasets/types";
import type { EnvironmentOptions } from "@/lib/env/types";
import { ConflictError, LimitReachedError, NotFoundError } from "@/lib/errors";
import { EpisodeController } from "@/lib/episodes/controller";
import type { AgentEvent, ControllerMode, EpisodeOutcome } from "@/lib/episodes/agent-event";
import type { LiveEventInput, LoggedLiveEvent } from "./events";
import { toLiveEvent } from "./from-engine";
import { LiveChannel } from "./live-channel";
import { aliasLive, findLive, forgetLive, listLive, registerLive } from "./live-registry";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { resolveModel, type AdHocModel } from "@/lib/agent/models";
import { policyNameSchema } from "@/lib/agent/policies/types";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import { runEpisode } from "@/lib/agent/run-episode";
import { assertTaskUnsealed } from "@/lib/studies/baseline-seal";
import type { ControlMessage } from "./protocol";

/**
 * The model's side of a live episode (the person's is ./person-actor.ts; ./live-episodes.ts is
 * the manager of both): its actions come from lib/agent's loop, driven by a controller (pause,
 * step, resume, stop, take over, hand back), and its events go to a logged channel
 * (./live-channel.ts) that any number of viewers follow over the websocket from any position.
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

/** Most model episodes started from the playground running at once in one server. */
export const MAX_LIVE_AGENTS = 4;

/** How long a finished model episode's log stays for late viewers (a reload after the end still shows it). */
const KEEP_MS = { play: 10 * 60_000, run: 2 * 60_000 };

/** A model's live episode, in the registry of live episodes (./live-registry.ts). */
export interface ModelEpisode {
  readonly actor: "model";
  id: string;
  task: Task;
  /** "play": started on a task page; "run": an episode of a batch run in this server. */
  kind: "play" | "run";
  /** The batch run it belongs to, for kind "run". */
  runId: string | null;
  controller: EpisodeController;
  channel: LiveChannel<LoggedLiveEvent>;
  readonly log: readonly LoggedLiveEvent[];
  done: Promise<EpisodeOutcome | null>;
  finished: boolean;
  episodeId: string | null;
  /** Follows the episode from now on; returns the way to stop. */
  subscribe(listener: (e: LoggedLiveEvent) => void): () => void;
}

/**
 * Registers a model episode so any number of viewers can follow it from any position and control
 * it, at its id or its stored episode's id (the watch page's URL names it, so a reload or a second
 * tab reattaches). Returns the agent, the `onEvent` to give runEpisode, and `end` for when it ends.
 */
export function trackAgent(
  task: Task,
  controller: EpisodeController,
  meta: { kind: "play" | "run"; runId?: string },
): { agent: ModelEpisode; onEvent: (e: AgentEvent) => void; fail: (message: string) => void; end: () => void } {
  const channel = LiveChannel.logged();
  const push = (event: LiveEventInput) => channel.send(event);
  const agent: ModelEpisode = {
    actor: "model",
    id: randomUUID(),
    task,
    kind: meta.kind,
    runId: meta.runId ?? null,
    controller,
    channel,
    get log() {
      return channel.log;
    },
    finished: false,
    episodeId: null,
    done: Promise.resolve(null),
    subscribe: (listener) => channel.attach(listener, channel.log.length),
  };
  push({ type: "mode", mode: controller.state });
  const unwatch = controller.onChange((mode) => push({ type: "mode", mode }));
  registerLive(agent);
  return {
    agent,
    onEvent: (e) => {
      if (e.type === "episode-start") {
        agent.episodeId = e.episodeId;
        aliasLive(e.episodeId, agent);
      }
      const live = toLiveEvent(e);
      if (live) push(live);
    },
    fail: (message) => push({ type: "failed", message }),
    end: () => {
      if (agent.finished) return;
      agent.finished = true;
      unwatch();
      channel.end();
      // Keep the log a while for late viewers, then forget the agent.
      forgetLive(agent, KEEP_MS[agent.kind]);
    },
  };
}

/**
 * Starts a model on a task. The episode is stored like any other (mode "play", player kind model).
 * @throws ConflictError while the task is sealed by a baseline episode or an open study (the run is
 * scored, and a person may take it over); LimitReachedError when MAX_LIVE_AGENTS are running;
 * BadInputError/NotFoundError for the model.
 */
export async function startAgent(
  task: Task,
  input: StartAgentInput,
  options: { adhoc?: AdHocModel; envOptions?: EnvironmentOptions; recorder?: EpisodeRecorder } = {},
): Promise<ModelEpisode> {
  await assertTaskUnsealed({ environment: task.env, dataset: task.dataset, taskId: task.id }, "a model run (it is scored, and can be taken over)");
  const running = listLive<ModelEpisode>("model").filter((a) => a.kind === "play" && !a.finished).length;
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
  return getAgent(id).channel.attach(listener, from);
}

/** The live agent with this id, or the one playing the stored episode with this id. @throws NotFoundError */
export function getAgent(id: string): ModelEpisode {
  const a = findLive<ModelEpisode>(id, "model");
  if (!a) throw new NotFoundError(`live model episode ${id} (it ended more than a few minutes ago, or the server restarted)`);
  return a;
}

/** Whether a live agent (or the one playing the stored episode) with this id is known here. */
export function isAgentLive(id: string): boolean {
  return findLive<ModelEpisode>(id, "model") !== undefined;
}

/** The live agents of a batch run, by stored episode id (the run page links its running episodes to them). */
export function listRunAgents(runId: string): ModelEpisode[] {
  return listLive<ModelEpisode>("model").filter((a) => a.runId === runId);
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
