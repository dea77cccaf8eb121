import "server-only";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { Environment } from "@/lib/env/types";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import { DEFAULT_TURN_LIMIT } from "@/lib/episodes/rules";
import { EpisodeSession, type StoredEpisode } from "@/lib/episodes/session";
import { BadInputError, ConflictError, NotFoundError } from "@/lib/errors";
import { uuidv7 } from "@/lib/db/ids";
import type { PublicTask } from "@/lib/tasks/public-task";
import type { ControlMessage, OpenMessage, RecordMessage } from "./protocol";
import type { EpisodeView, LoggedLiveEvent, SubmittedPayload } from "./events";
import type { EpisodeListener, PlaygroundEpisodes } from "./ws-server";
import { findLive, forgetLive, registerLive } from "./live-registry";
import { SessionPool } from "./session-pool";
import { PersonActor, PersonEpisode, type PersonActorDeps, type PlayConditions } from "./person-actor";
import { controlAgent, watchAgent } from "./model-actor";

/** What the manager needs from the outside world (injected, so the bench and tests can use the real ones directly). */
export interface LiveEpisodeDeps extends PersonActorDeps {
  /** Where episodes are written (lib/episodes/db-recorder.ts). */
  recorder: EpisodeRecorder;
  /** A stored episode with its turns, to resume it; null when unknown. */
  readEpisode(id: string): Promise<StoredEpisode | null>;
  /** Resolves a task reference (`<dataset>:<id>`) of an environment. @throws NotFoundError */
  resolveTask(env: EnvName, ref: string): Promise<Task>;
  /** The player's view of a task (no gold, no hidden tests). */
  publicTask(task: Task): Promise<PublicTask>;
  createEnvironment(env: EnvName): Promise<Environment>;
  /** Idle time after which a live sandbox is closed (the episode can still be resumed by replay). */
  idleMs: number;
  /** Most live sandboxes at once. */
  maxSandboxes: number;
  /** Backend name recorded with each episode. */
  backendName: string;
  /** A study's conditions, which override what an open message asks for; null when there is no such study. */
  studyConditions?(studyId: string): Promise<{ env: EnvName; dataset: string; tasks: string[]; feedback: "none" | "reward"; turnLimit: number } | null>;
}

/**
 * The manager of live episodes, a person's and a model's: they differ only by their actor (a
 * person's actions come from the websocket, ./person-actor.ts; a model's from lib/agent's loop,
 * ./model-actor.ts). Both are in one registry (./live-registry.ts), found by id; a connection
 * attaches, reattaches and detaches through the episode's channel (./live-channel.ts); the
 * baseline seal is checked here before a person's episode opens or resumes (before a model's starts,
 * in ./model-actor.ts). A person's episode holds a sandbox from the pool (the cap, and the idle
 * close after which a resume replays it into a fresh one); a model's sandbox is its loop's.
 */
export class LiveEpisodeManager implements PlaygroundEpisodes<PersonEpisode> {
  private readonly pool: SessionPool<PersonEpisode>;
  private readonly person: PersonActor;

  constructor(private readonly deps: LiveEpisodeDeps) {
    this.pool = new SessionPool<PersonEpisode>({
      max: deps.maxSandboxes,
      idleMs: deps.idleMs,
      capName: "IC_MAX_SANDBOXES",
      onAdmit: (ep) => registerLive(ep),
      onForget: (ep) => forgetLive(ep),
      onIdleClose: (ep) => {
        ep.send({
          type: "error",
          code: "timeout",
          message: "the sandbox was closed after being idle; reconnect to restore it",
          fatal: true,
          episodeStatus: "interrupted",
        });
        ep.channel.detachAll();
      },
    });
    this.person = new PersonActor(deps, this.pool);
  }

  /** Number of live sandboxes. */
  get size(): number {
    return this.pool.size;
  }

  /** A person's live episode of this manager. */
  get(id: string): PersonEpisode | undefined {
    const ep = findLive<PersonEpisode>(id, "person");
    return ep && this.pool.get(ep.id) === ep ? ep : undefined;
  }

  /** Opens a new episode on a task and attaches `listener` to it. */
  async open(msg: OpenMessage, listener: EpisodeListener): Promise<PersonEpisode> {
    const task = await this.deps.resolveTask(msg.env, msg.taskRef);
    msg = await this.studyOpen(msg, task);
    if (msg.mode !== "baseline") await this.assertUnsealed(task, "a play episode on this task");
    const publicView = await this.deps.publicTask(task);
    const conditions: PlayConditions = { mode: msg.mode, feedback: msg.feedback, annotator: msg.annotator ?? null, studyId: msg.studyId ?? null };
    const ep = await this.pool.admit(async () => {
      const session = await EpisodeSession.open({
        ...this.sessionOptions(task, conditions),
        start: { ...this.startFields(conditions, msg.turnLimit ?? DEFAULT_TURN_LIMIT), id: uuidv7() },
        // Opening a task names the episode but stores nothing: a page merely opened leaves no 0-turn episode.
        storeAt: "first-action",
      });
      try {
        await session.ready();
      } catch (err) {
        await session.close();
        throw err;
      }
      return new PersonEpisode(session, conditions, publicView);
    });
    this.attach(ep, listener);
    ep.send({ type: "opened", episode: ep.view(), task: publicView, turns: [] });
    return ep;
  }

  /**
   * Resumes an episode: re-attaches to its live sandbox, or (after a restart or an idle close)
   * replays its stored actions into a fresh sandbox. A finished episode is shown as it ended.
   */
  async resume(episodeId: string, listener: EpisodeListener): Promise<PersonEpisode | null> {
    const existing = this.get(episodeId);
    if (existing) {
      if (existing.mode !== "baseline" || existing.submitted) await this.assertUnsealed(existing.task, "resuming this episode", existing.id);
      this.attach(existing, listener);
      existing.send({ type: "opened", episode: existing.view(), task: existing.publicView, turns: existing.turns, submitted: existing.submitted ?? undefined });
      return existing;
    }
    const stored = await this.deps.readEpisode(episodeId);
    if (!stored) throw new NotFoundError(`episode ${episodeId}`);
    const task = await this.deps.resolveTask(stored.env, `${stored.dataset}:${stored.taskId}`);
    const publicView = await this.deps.publicTask(task);
    const open = stored.status === "running" || stored.status === "interrupted";
    // A finished study episode reopens (with its gold) where the study shows the gold after submit.
    if (stored.mode !== "baseline" || !open) await this.assertUnsealed(task, "resuming this episode", stored.id, open ? null : stored.studyId);
    if (!open) {
      listener({
        type: "opened",
        episode: storedView(stored),
        task: publicView,
        turns: stored.turns,
        submitted: stored.status === "submitted" ? this.submittedFromStore(stored, task) : undefined,
      });
      return null;
    }
    listener({ type: "status", message: `restoring the episode: replaying ${stored.turns.length} stored action(s) in a fresh sandbox` });
    const conditions: PlayConditions = { mode: stored.mode, feedback: stored.feedback, annotator: stored.annotator, studyId: stored.studyId };
    const ep = await this.pool.admit(async () => {
      const session = await EpisodeSession.resume({ ...this.sessionOptions(task, conditions), start: this.startFields(conditions, stored.turnLimit) }, stored);
      return new PersonEpisode(session, conditions, publicView);
    });
    this.attach(ep, listener);
    ep.send({ type: "opened", episode: ep.view(), task: publicView, turns: ep.turns });
    return ep;
  }

  /** Detaches a listener (its connection closed or moved on); the episode stays live until its idle timeout, evictable at once. */
  detach(ep: PersonEpisode, listener: EpisodeListener): void {
    ep.channel.detach(listener);
    this.pool.touch(ep);
  }

  /**
   * Follows a model's live episode from entry `from` of its log: the one websocket carries a
   * model's episode to its watchers as it carries a person's to its player.
   */
  async watch(id: string, from: number, listener: (entry: LoggedLiveEvent) => void): Promise<() => void> {
    return watchAgent(id, from, listener);
  }

  /** Drives a model's live episode (pause, step, take over, a person's action...). */
  async control(id: string, control: ControlMessage): Promise<void> {
    await controlAgent(id, control);
  }

  // A person's actions (./person-actor.ts).
  action(ep: PersonEpisode, text: string, source: "console" | "editor"): Promise<void> {
    return this.person.action(ep, text, source);
  }
  interrupt(ep: PersonEpisode): void {
    this.person.interrupt(ep);
  }
  submit(ep: PersonEpisode, arg?: string): Promise<void> {
    return this.person.submit(ep, arg);
  }
  abandon(ep: PersonEpisode, reason?: string): Promise<void> {
    return this.person.abandon(ep, reason);
  }
  record(ep: PersonEpisode, chunk: RecordMessage): Promise<void> {
    return this.person.record(ep, chunk);
  }

  /**
   * Restart: the current episode is abandoned and a new one opens on the same task, reusing the
   * sandbox when it is still live (reset gives it fresh state).
   */
  async restart(ep: PersonEpisode, listener: EpisodeListener): Promise<PersonEpisode> {
    const msg: OpenMessage = {
      type: "open",
      env: ep.task.env,
      taskRef: `${ep.task.dataset}:${ep.task.id}`,
      mode: ep.mode,
      feedback: ep.feedback,
      turnLimit: ep.turnLimit,
      annotator: ep.conditions.annotator ?? undefined,
      studyId: ep.conditions.studyId ?? undefined,
    };
    if (ep.status === "running") await this.abandon(ep, "restart");
    return this.open(msg, listener);
  }

  /** Closes every live sandbox (server shutdown); stored episodes stay running and resume by replay. */
  async shutdown(): Promise<void> {
    await this.pool.shutdown();
  }

  private sessionOptions(task: Task, conditions: PlayConditions) {
    return {
      task,
      recorder: this.deps.recorder,
      environment: () => this.deps.createEnvironment(task.env),
      // A play episode checks the seal again when stored: a baseline episode may have started on the task since the page was opened.
      beforeStore: conditions.mode !== "baseline" ? () => this.assertUnsealed(task, "a play episode on this task") : undefined,
    };
  }

  private startFields(c: PlayConditions, turnLimit: number) {
    return {
      player: { kind: "human" as const, annotator: c.annotator },
      turnLimit,
      mode: c.mode,
      feedback: c.feedback,
      studyId: c.studyId,
      backend: this.deps.backendName,
    };
  }

  /**
   * An open message within a study takes the study's conditions (baseline mode, its feedback and
   * turn limit), whatever the client asked for; the task must be one of the study's.
   */
  private async studyOpen(msg: OpenMessage, task: Task): Promise<OpenMessage> {
    if (!msg.studyId || !this.deps.studyConditions) return msg;
    const study = await this.deps.studyConditions(msg.studyId);
    if (!study) throw new NotFoundError(`study ${msg.studyId}`);
    if (study.env !== task.env || study.dataset !== task.dataset || !study.tasks.includes(task.id)) {
      throw new BadInputError(`task ${task.dataset}:${task.id} is not one of study ${msg.studyId}'s tasks`, "taskRef");
    }
    return { ...msg, mode: "baseline", feedback: study.feedback, turnLimit: study.turnLimit };
  }

  private async assertUnsealed(task: Task, what: string, exceptId?: string, studyId?: string | null): Promise<void> {
    const message = await this.deps.sealedBy?.(task, what, exceptId, studyId);
    if (message) throw new ConflictError(message);
  }

  /** The one player's connection takes the episode (another window that had it is told). */
  private attach(ep: PersonEpisode, listener: EpisodeListener): void {
    ep.channel.attach(listener);
    this.pool.touch(ep);
  }

  private submittedFromStore(stored: StoredEpisode, task: Task): SubmittedPayload | undefined {
    if (stored.reward === null || !stored.breakdown) return undefined;
    return {
      reward: stored.reward,
      breakdown: stored.breakdown as unknown as SubmittedPayload["breakdown"],
      gold: this.deps.goldText(task),
      goldObservation: stored.goldObservation ?? "",
      agentObservation: stored.agentObservation ?? "",
    };
  }
}

function storedView(s: StoredEpisode): EpisodeView {
  return {
    id: s.id,
    status: s.status,
    mode: s.mode,
    feedback: s.feedback,
    turnLimit: s.turnLimit,
    annotator: s.annotator,
    studyId: s.studyId,
    firstActionAt: s.firstActionAt,
    endedAt: s.endedAt ?? null,
  };
}
