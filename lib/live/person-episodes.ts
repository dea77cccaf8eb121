import "server-only";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { Environment } from "@/lib/env/types";
import type { EpisodeRecorder } from "@/lib/episodes/recorder";
import { DEFAULT_TURN_LIMIT, isSkipReason } from "@/lib/episodes/rules";
import { EpisodeSession, type StoredEpisode } from "@/lib/episodes/session";
import { SessionPool } from "./session-pool";
import { controlAgent, watchAgent } from "./model-episodes";
import { parseSubmit } from "@/lib/env/submit";
import { asStudioError, BadInputError, ConflictError, NotFoundError } from "@/lib/errors";
import { uuidv7 } from "@/lib/db/ids";
import type { ControlMessage, OpenMessage, RecordMessage } from "./protocol";
import type { EpisodeView, Feedback, PlayMode, LiveEventInput, LoggedLiveEvent, SubmittedPayload, TurnView } from "./events";
import type { PublicTask } from "@/lib/tasks/public-task";
import type { RecordingChunk } from "@/lib/recording/events";
import type { EpisodeListener } from "./ws-server";

/** What the manager needs from the outside world (injected, so the bench and tests can use the real ones directly). */
export interface LiveEpisodeDeps {
  /** Where episodes are written (lib/episodes/db-recorder.ts). */
  recorder: EpisodeRecorder;
  /** A stored episode with its turns, to resume it; null when unknown. */
  readEpisode(id: string): Promise<StoredEpisode | null>;
  /** Resolves a task reference (`<dataset>:<id>`) of an environment. @throws NotFoundError */
  resolveTask(env: EnvName, ref: string): Promise<Task>;
  /** The player's view of a task (no gold, no hidden tests). */
  publicTask(task: Task): Promise<PublicTask>;
  /** The gold solution shown after a submit (lib/episodes/gold.ts goldShown). */
  goldText(task: Task): string;
  createEnvironment(env: EnvName): Promise<Environment>;
  /** Idle time after which a live sandbox is closed (the episode can still be resumed by replay). */
  idleMs: number;
  /** Most live sandboxes at once. */
  maxSandboxes: number;
  /** Stores a batch of an episode's recording under its cap (lib/db/recordings.ts); absent: recordings are not kept. */
  appendRecording?(episodeId: string, chunk: RecordingChunk): Promise<{ stored: boolean; truncated: boolean }>;
  /** Backend name recorded with each episode. */
  backendName: string;
  /**
   * The baseline seal (lib/studies/baseline-seal.ts): the refusal message for `what` when the task
   * has an unsubmitted baseline episode other than `exceptId`, else null. Absent: nothing is sealed.
   */
  sealedBy?(task: Task, what: string, exceptId?: string, studyId?: string | null): Promise<string | null>;
  /** A study's conditions, which override what an open message asks for; null when there is no such study. */
  studyConditions?(studyId: string): Promise<{ env: EnvName; dataset: string; tasks: string[]; feedback: "none" | "reward"; turnLimit: number } | null>;
}

interface PlayConditions {
  mode: PlayMode;
  feedback: Feedback;
  annotator: string | null;
  studyId: string | null;
}

/**
 * A person's live episode: a session (lib/episodes/session.ts) with the playground's view of it
 * and the connection that watches it.
 */
export class LiveEpisode {
  readonly publicView: PublicTask;
  submitted: SubmittedPayload | null = null;
  /** The running action's abort controller (Ctrl+C); non-null while an action runs. */
  running: AbortController | null = null;
  /** Set while a submit, restart or abandon is in progress. */
  settling = false;
  listener: EpisodeListener | null = null;
  /** Set once the recording's cap was reached (the player is told once). */
  recordingCapped = false;

  constructor(
    readonly session: EpisodeSession,
    readonly conditions: PlayConditions,
    publicView: PublicTask,
  ) {
    this.publicView = publicView;
  }

  get id(): string {
    return this.session.id;
  }
  get task(): Task {
    return this.session.task;
  }
  get turns(): TurnView[] {
    return this.session.turns;
  }
  get turnLimit(): number {
    return this.session.turnLimit;
  }
  get mode(): PlayMode {
    return this.conditions.mode;
  }
  get feedback(): Feedback {
    return this.conditions.feedback;
  }
  get status(): EpisodeView["status"] {
    return this.session.status === "new" ? "running" : this.session.status;
  }
  get firstActionAt(): number | null {
    return this.session.firstActionAt;
  }
  get busy(): boolean {
    return this.running !== null || this.settling;
  }
  get watched(): boolean {
    return this.listener !== null;
  }

  closeSandbox(): Promise<void> {
    return this.session.close();
  }

  view(): EpisodeView {
    return {
      id: this.id,
      status: this.status,
      mode: this.mode,
      feedback: this.feedback,
      turnLimit: this.turnLimit,
      annotator: this.conditions.annotator,
      studyId: this.conditions.studyId,
      firstActionAt: this.firstActionAt,
      replayed: this.session.replayed || undefined,
      stored: this.session.stored,
    };
  }

  send(message: LiveEventInput): void {
    this.listener?.(message);
  }
}

/**
 * The playground's live episodes: one session per episode in a pool (the sandbox cap and the idle
 * close, lib/live/session-pool.ts), opened, resumed (re-attached, or replayed into a fresh
 * sandbox after a restart or an idle close) and driven from the websocket. Every turn is written
 * to the store before the player hears of its end.
 */
export class LiveEpisodeManager {
  private readonly pool: SessionPool<LiveEpisode>;

  constructor(private readonly deps: LiveEpisodeDeps) {
    this.pool = new SessionPool<LiveEpisode>({
      max: deps.maxSandboxes,
      idleMs: deps.idleMs,
      capName: "IC_MAX_SANDBOXES",
      onIdleClose: (ep) => {
        ep.send({
          type: "error",
          code: "timeout",
          message: "the sandbox was closed after being idle; reconnect to restore it",
          fatal: true,
          episodeStatus: "interrupted",
        });
        ep.listener = null;
      },
    });
  }

  /** Number of live sandboxes. */
  get size(): number {
    return this.pool.size;
  }

  get(id: string): LiveEpisode | undefined {
    return this.pool.get(id);
  }

  /** Opens a new episode on a task and attaches `listener` to it. */
  async open(msg: OpenMessage, listener: EpisodeListener): Promise<LiveEpisode> {
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
      return new LiveEpisode(session, conditions, publicView);
    });
    this.attach(ep, listener);
    ep.send({ type: "opened", episode: ep.view(), task: publicView, turns: [] });
    return ep;
  }

  /**
   * Resumes an episode: re-attaches to its live sandbox, or (after a restart or an idle close)
   * replays its stored actions into a fresh sandbox. A finished episode is shown as it ended.
   */
  async resume(episodeId: string, listener: EpisodeListener): Promise<LiveEpisode | null> {
    const existing = this.pool.get(episodeId);
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
      return new LiveEpisode(session, conditions, publicView);
    });
    this.attach(ep, listener);
    ep.send({ type: "opened", episode: ep.view(), task: publicView, turns: ep.turns });
    return ep;
  }

  /** Detaches a listener (its connection closed or moved on); the episode stays live until its idle timeout, evictable at once. */
  detach(ep: LiveEpisode, listener: EpisodeListener): void {
    if (ep.listener === listener) ep.listener = null;
    this.pool.touch(ep);
  }

  /** Runs one action (a submit typed as an action is handled as a submit). */
  async action(ep: LiveEpisode, text: string, source: "console" | "editor"): Promise<void> {
    this.assertRunning(ep);
    const submitArg = parseSubmit(text)?.arg ?? null;
    if (submitArg !== null) return this.submit(ep, submitArg || undefined, { text, source });
    if (ep.busy) throw new ConflictError("an action is already running: wait for it, or press Ctrl+C to stop it");
    if (ep.session.limitReached) {
      ep.send({ type: "limitReached", turns: ep.turns.length, limit: ep.turnLimit, message: limitMessage(ep) });
      return;
    }
    const controller = new AbortController();
    ep.running = controller;
    try {
      await ep.session.ensureStored();
    } catch (err) {
      ep.running = null;
      throw err;
    }
    this.pool.touch(ep);
    const index = ep.turns.length;
    ep.send({ type: "turnStart", index, actor: "human", action: text, source });
    let r: Awaited<ReturnType<EpisodeSession["act"]>>;
    try {
      r = await ep.session.act(
        text,
        { actor: "human", source },
        {
          signal: controller.signal,
          onOutput: (chunk) => ep.send({ type: "output", index, chunk }),
          score: ep.feedback === "reward" ? async (env) => ({ reward: (await env.evaluate()).reward }) : undefined,
        },
      );
    } catch (err) {
      ep.running = null;
      const e = asStudioError(err);
      // The store refused the turn: the episode is as it was, and the player hears why.
      if (e.code === "storage" || e.code === "conflict") {
        this.pool.touch(ep);
        throw e;
      }
      await this.fail(ep, e);
      return;
    }
    ep.running = null;
    this.pool.touch(ep);
    const { turn, step } = r;
    ep.send({
      type: "turnEnd",
      index,
      actor: turn.actor,
      source: turn.source,
      action: turn.action,
      ok: step.ok,
      observation: step.observation,
      timedOut: step.timedOut || undefined,
      aborted: step.aborted || undefined,
      truncated: step.truncated || undefined,
      reward: turn.reward ?? undefined,
      durationMs: turn.durationMs,
      table: step.table,
    });
    if (ep.session.limitReached) ep.send({ type: "limitReached", turns: ep.turns.length, limit: ep.turnLimit, message: limitMessage(ep) });
  }

  /** Stops the running action (Ctrl+C); the episode goes on. */
  /**
   * Stores a batch of the episode's recording. Before the episode is stored (its first action)
   * there is nothing to attach it to: the browser holds its events until then, and a batch that
   * comes early is refused with a message. At the cap the player is told once that recording stopped.
   */
  async record(ep: LiveEpisode, chunk: RecordMessage): Promise<void> {
    if (!this.deps.appendRecording) return;
    if (!ep.session.stored) throw new ConflictError("the episode is not stored yet: send its recording after its first action");
    const { type: _type, ...rest } = chunk;
    const r = await this.deps.appendRecording(ep.id, rest);
    if (r.truncated && !ep.recordingCapped) {
      ep.recordingCapped = true;
      ep.send({ type: "status", message: "this episode's recording reached its size cap: later keystrokes are not recorded (the turns still are)" });
    }
  }

  interrupt(ep: LiveEpisode): void {
    ep.running?.abort();
  }

  /** Scores the episode, stores the result, sends it with the gold solution, and frees the sandbox. */
  async submit(ep: LiveEpisode, arg?: string, typed?: { text: string; source: "console" | "editor" }): Promise<void> {
    this.assertRunning(ep);
    if (ep.busy) throw new ConflictError("an action is still running: wait for it, or press Ctrl+C, then submit");
    ep.settling = true;
    let r: Awaited<ReturnType<EpisodeSession["submit"]>>;
    try {
      await ep.session.ensureStored();
      r = await ep.session.submit(arg, {
        actor: "human",
        // Typed in the console or run from the editor as written; else the Submit button.
        source: typed ? typed.source : "button",
        action: typed?.text.trim() || (arg ? `submit ${arg}` : "submit"),
      });
    } catch (err) {
      const e = asStudioError(err);
      if (e.code === "storage" || e.code === "conflict" || ep.session.status !== "running") throw e;
      await this.fail(ep, e);
      return;
    } finally {
      ep.settling = false;
    }
    const { result, forced } = r;
    // Another annotator's baseline episode on this task still runs: its gold stays hidden from everyone.
    // Within a study that shows the gold after submit, that study's own seal does not hide it.
    const sealed = (await this.deps.sealedBy?.(ep.task, "showing the gold solution", ep.id, ep.conditions.studyId)) ?? null;
    ep.submitted = {
      reward: result.reward,
      breakdown: result.breakdown as unknown as SubmittedPayload["breakdown"],
      gold: sealed ? "" : this.deps.goldText(ep.task),
      goldObservation: sealed ? "" : result.goldObservation,
      agentObservation: result.agentObservation,
    };
    ep.send({ type: "submitted", ...ep.submitted, forced: forced || undefined });
    if (sealed) ep.send({ type: "status", message: sealed });
    await this.pool.release(ep);
  }

  /** Ends the episode without a score and frees the sandbox. */
  async abandon(ep: LiveEpisode, reason?: string): Promise<void> {
    if (ep.status !== "running") return;
    ep.running?.abort();
    ep.settling = true;
    try {
      // A study's Skip is a result (the task counts as done) even before any action, so it is
      // stored; any other abandon of an episode never acted on leaves nothing behind.
      await ep.session.abandon(reason, { keep: isSkipReason(reason) });
    } finally {
      ep.settling = false;
    }
    ep.send({ type: "abandoned" });
    await this.pool.release(ep);
  }

  /**
   * Restart: the current episode is abandoned and a new one opens on the same task, reusing the
   * sandbox when it is still live (reset gives it fresh state).
   */
  async restart(ep: LiveEpisode, listener: EpisodeListener): Promise<LiveEpisode> {
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

  /**
   * Follows a live model episode (./model-episodes.ts): the one websocket carries a model's
   * episode to its watchers as it carries a person's to its player.
   */
  async watch(id: string, from: number, listener: (entry: LoggedLiveEvent) => void): Promise<() => void> {
    return watchAgent(id, from, listener);
  }

  /** Drives a live model episode (pause, step, take over, a person's action...). */
  async control(id: string, control: ControlMessage): Promise<void> {
    await controlAgent(id, control);
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

  private attach(ep: LiveEpisode, listener: EpisodeListener): void {
    if (ep.listener && ep.listener !== listener) {
      ep.listener({ type: "error", code: "conflict", message: "this episode was opened in another window", fatal: true });
    }
    ep.listener = listener;
    this.pool.touch(ep);
  }

  private assertRunning(ep: LiveEpisode): void {
    if (ep.status !== "running") throw new ConflictError(`the episode is ${ep.status}: open a new one`);
  }

  /** The sandbox broke: record the episode as failed and tell the player. */
  private async fail(ep: LiveEpisode, err: unknown): Promise<void> {
    const e = asStudioError(err);
    await ep.session.fail(e.message).catch(() => {});
    ep.send({ type: "error", code: e.code, message: `the sandbox failed: ${e.message}`, fatal: true, episodeStatus: "error" });
    await this.pool.release(ep);
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

function limitMessage(ep: LiveEpisode): string {
  return `turn limit reached (${ep.turns.length} / ${ep.turnLimit}): submit to score the episode`;
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
