import "server-only";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { Environment, StepResult, SubmitResult } from "@/lib/env/types";
import { isForcedSubmit, isSkipReason } from "@/lib/episodes/rules";
import { isSubmit, parseSubmit } from "@/lib/episodes/submit";
import { asStudioError, BadInputError, ConflictError, LimitReachedError, NotFoundError, StudioError } from "@/lib/errors";
import {
  type EpisodeView,
  type OpenMessage,
  type PublicTask,
  type ServerMessageInput,
  type SubmittedPayload,
  type TurnView,
} from "@/lib/ws/protocol";
import { uuidv7 } from "@/lib/db/ids";
import type { EpisodeListener } from "@/lib/ws/server";
import type { EpisodeStore, NewEpisode, StoredEpisode, StoredTurn } from "./episode-store";
import { newEpisodeFromTask } from "@/lib/episodes/gold";


/** What the manager needs from the outside world (injected, so the bench and tests can use the real ones directly). */
export interface LiveEpisodeDeps {
  store: EpisodeStore;
  /** Resolves a task reference (`<dataset>:<id>`) of an environment. @throws NotFoundError */
  resolveTask(env: EnvName, ref: string): Promise<Task>;
  /** The player's view of a task (no gold, no hidden tests). */
  publicTask(task: Task): Promise<PublicTask>;
  /** The gold solution as text, shown after submit. */
  /** The gold solution shown after a submit (lib/episodes/gold.ts goldShown). */
  goldText(task: Task): string;
  createEnvironment(env: EnvName): Promise<Environment>;
  /** Idle time after which a live sandbox is closed (the episode can still be resumed by replay). */
  idleMs: number;
  /** Most live sandboxes at once. */
  maxSandboxes: number;
  /** Backend name recorded with each episode. */
  backendName: string;
  /**
   * The baseline seal (lib/server/baseline-seal.ts): the refusal message for `what` when the task
   * has an unsubmitted baseline episode other than `exceptId`, else null. Absent: nothing is sealed.
   */
  sealedBy?(task: Task, what: string, exceptId?: string): Promise<string | null>;
  /** A study's conditions, which override what an open message asks for; null when there is no such study. */
  studyConditions?(studyId: string): Promise<{ env: EnvName; dataset: string; tasks: string[]; feedback: "none" | "reward"; turnLimit: number } | null>;
}

/** One episode with a live sandbox. */
export class LiveEpisode {
  readonly id: string;
  readonly task: Task;
  readonly publicView: PublicTask;
  env: Environment;
  mode: "play" | "baseline";
  feedback: "none" | "reward";
  turnLimit: number;
  annotator: string | null;
  studyId: string | null;
  status: EpisodeView["status"] = "running";
  turns: TurnView[] = [];
  firstActionAt: number | null = null;
  replayed = false;
  submitted: SubmittedPayload | null = null;
  lastActive = Date.now();
  /** The running action's abort controller; non-null while busy. */
  running: AbortController | null = null;
  /** Set while a submit, restart or abandon is in progress. */
  settling = false;
  listener: EpisodeListener | null = null;
  idleTimer: NodeJS.Timeout | null = null;
  /**
   * The record to store at the first action or submit; null once stored. Opening a task names the
   * episode but stores nothing: a page merely opened leaves no 0-turn episode behind.
   */
  unstored: NewEpisode | null = null;

  constructor(init: Pick<LiveEpisode, "id" | "task" | "publicView" | "env" | "mode" | "feedback" | "turnLimit" | "annotator" | "studyId">) {
    this.id = init.id;
    this.task = init.task;
    this.publicView = init.publicView;
    this.env = init.env;
    this.mode = init.mode;
    this.feedback = init.feedback;
    this.turnLimit = init.turnLimit;
    this.annotator = init.annotator;
    this.studyId = init.studyId;
  }

  view(): EpisodeView {
    return {
      id: this.id,
      status: this.status,
      mode: this.mode,
      feedback: this.feedback,
      turnLimit: this.turnLimit,
      annotator: this.annotator,
      studyId: this.studyId,
      firstActionAt: this.firstActionAt,
      replayed: this.replayed || undefined,
      stored: this.unstored === null,
    };
  }

  send(message: ServerMessageInput): void {
    this.listener?.(message);
  }

  get busy(): boolean {
    return this.running !== null || this.settling;
  }
}

/**
 * Keeps the live episodes of the server: one sandbox (Environment) per episode, a cap on how many
 * exist at once, an idle timeout, and resume (re-attach to the live sandbox, or replay the stored
 * actions into a fresh one after a restart). Every turn is written to the store before the player
 * hears of its end.
 */
export class LiveEpisodeManager {
  private readonly live = new Map<string, LiveEpisode>();
  /** Sandboxes being created (count toward the cap). */
  private pending = 0;
  private closed = false;

  constructor(private readonly deps: LiveEpisodeDeps) {}

  /** Number of live sandboxes. */
  get size(): number {
    return this.live.size + this.pending;
  }

  get(id: string): LiveEpisode | undefined {
    return this.live.get(id);
  }

  /** Opens a new episode on a task and attaches `listener` to it. */
  async open(msg: OpenMessage, listener: EpisodeListener): Promise<LiveEpisode> {
    const task = await this.deps.resolveTask(msg.env, msg.taskRef);
    msg = await this.studyOpen(msg, task);
    if (msg.mode !== "baseline") await this.assertUnsealed(task, "a play episode on this task");
    const publicView = await this.deps.publicTask(task);
    const env = await this.acquire(task.env);
    try {
      await env.reset(task);
      const { environment, ...fromTask } = newEpisodeFromTask(task);
      const id = uuidv7();
      const record: NewEpisode = {
        id,
        env: environment,
        ...fromTask,
        mode: msg.mode,
        feedback: msg.feedback,
        turnLimit: msg.turnLimit,
        annotator: msg.annotator ?? null,
        studyId: msg.studyId ?? null,
        backend: this.deps.backendName,
      };
      const ep = new LiveEpisode({
        id,
        task,
        publicView,
        env,
        mode: msg.mode,
        feedback: msg.feedback,
        turnLimit: msg.turnLimit,
        annotator: msg.annotator ?? null,
        studyId: msg.studyId ?? null,
      });
      ep.unstored = record;
      this.live.set(id, ep);
      this.pending--;
      this.attach(ep, listener);
      ep.send({ type: "opened", episode: ep.view(), task: publicView, turns: [] });
      return ep;
    } catch (err) {
      this.pending--;
      await env.close().catch(() => {});
      throw err;
    }
  }

  /**
   * Resumes an episode: re-attaches to its live sandbox, or (after a restart or an idle close)
   * replays its stored actions into a fresh sandbox. A finished episode is shown as it ended.
   */
  async resume(episodeId: string, listener: EpisodeListener): Promise<LiveEpisode | null> {
    const existing = this.live.get(episodeId);
    if (existing) {
      if (existing.mode !== "baseline" || existing.submitted) await this.assertUnsealed(existing.task, "resuming this episode", existing.id);
      this.attach(existing, listener);
      existing.send({
        type: "opened",
        episode: existing.view(),
        task: existing.publicView,
        turns: existing.turns,
        submitted: existing.submitted ?? undefined,
      });
      return existing;
    }
    const stored = await this.deps.store.getEpisodeById(episodeId);
    if (!stored) throw new NotFoundError(`episode ${episodeId}`);
    const task = await this.deps.resolveTask(stored.env, `${stored.dataset}:${stored.taskId}`);
    const publicView = await this.deps.publicTask(task);
    const open = stored.status === "running" || stored.status === "interrupted";
    if (stored.mode !== "baseline" || !open) await this.assertUnsealed(task, "resuming this episode", stored.id);
    if (!open) {
      listener({
        type: "opened",
        episode: storedView(stored),
        task: publicView,
        turns: stored.turns.map(turnView),
        submitted: stored.status === "submitted" ? this.submittedFromStore(stored, task) : undefined,
      });
      return null;
    }
    listener({ type: "status", message: `restoring the episode: replaying ${stored.turns.length} stored action(s) in a fresh sandbox` });
    const env = await this.acquire(task.env);
    let ep: LiveEpisode;
    try {
      await env.reset(task);
      for (const t of stored.turns) {
        if (isSubmit(t.action)) continue;
        await env.step(t.action);
      }
      if (stored.status === "interrupted") await this.deps.store.reopenEpisode(stored.id);
      ep = new LiveEpisode({
        id: stored.id,
        task,
        publicView,
        env,
        mode: stored.mode,
        feedback: stored.feedback,
        turnLimit: stored.turnLimit,
        annotator: stored.annotator,
        studyId: stored.studyId,
      });
      ep.turns = stored.turns.map(turnView);
      ep.firstActionAt = stored.firstActionAt ?? stored.turns[0]?.startedAt ?? null;
      ep.replayed = true;
      this.live.set(ep.id, ep);
      this.pending--;
    } catch (err) {
      this.pending--;
      await env.close().catch(() => {});
      throw err;
    }
    this.attach(ep, listener);
    ep.send({ type: "opened", episode: ep.view(), task: publicView, turns: ep.turns });
    return ep;
  }

  /** Detaches a listener (its connection closed); the episode stays live until its idle timeout. */
  detach(ep: LiveEpisode, listener: EpisodeListener): void {
    if (ep.listener === listener) ep.listener = null;
    this.touch(ep);
  }

  /** Runs one action (a submit typed as an action is handled as a submit). */
  async action(ep: LiveEpisode, text: string, source: string): Promise<void> {
    this.assertRunning(ep);
    const submitArg = parseSubmit(text)?.arg ?? null;
    if (submitArg !== null) return this.submit(ep, submitArg || undefined, { text, source });
    if (ep.busy) throw new ConflictError("an action is already running: wait for it, or press Ctrl+C to stop it");
    if (ep.turns.length >= ep.turnLimit) {
      ep.send({ type: "limitReached", turns: ep.turns.length, limit: ep.turnLimit, message: limitMessage(ep) });
      return;
    }
    const controller = new AbortController();
    ep.running = controller;
    try {
      await this.ensureStored(ep);
    } catch (err) {
      ep.running = null;
      throw err;
    }
    this.touch(ep);
    const startedAt = Date.now();
    if (ep.firstActionAt === null) ep.firstActionAt = startedAt;
    const index = ep.turns.length;
    ep.send({ type: "turnStart", index, action: text, source });
    let result: StepResult;
    let reward: number | null = null;
    try {
      result = await ep.env.step(text, { onOutput: (chunk) => ep.send({ type: "output", chunk }), signal: controller.signal });
      if (ep.feedback === "reward") reward = (await ep.env.evaluate()).reward;
    } catch (err) {
      ep.running = null;
      await this.fail(ep, err);
      return;
    }
    const durationMs = Date.now() - startedAt;
    const turn: StoredTurn = {
      index,
      action: text,
      source,
      observation: result.observation,
      ok: result.ok,
      reward,
      startedAt,
      durationMs,
      timedOut: !!result.timedOut,
      aborted: !!result.aborted,
    };
    try {
      await this.deps.store.appendTurn(ep.id, turn);
    } finally {
      ep.running = null;
      this.touch(ep);
    }
    ep.turns.push(turnView(turn));
    ep.send({
      type: "turnEnd",
      index,
      ok: result.ok,
      observation: result.observation,
      timedOut: result.timedOut || undefined,
      aborted: result.aborted || undefined,
      truncated: result.truncated || undefined,
      reward: reward ?? undefined,
      durationMs,
      table: result.table,
    });
    if (ep.turns.length >= ep.turnLimit) {
      ep.send({ type: "limitReached", turns: ep.turns.length, limit: ep.turnLimit, message: limitMessage(ep) });
    }
  }

  /** Stops the running action (Ctrl+C); the episode goes on. */
  interrupt(ep: LiveEpisode): void {
    ep.running?.abort();
  }

  /** Scores the episode, stores the result, sends it with the gold solution, and frees the sandbox. */
  async submit(ep: LiveEpisode, arg?: string, typed?: { text: string; source: string }): Promise<void> {
    this.assertRunning(ep);
    if (ep.busy) throw new ConflictError("an action is still running: wait for it, or press Ctrl+C, then submit");
    ep.settling = true;
    try {
      await this.ensureStored(ep);
    } catch (err) {
      ep.settling = false;
      throw err;
    }
    const startedAt = Date.now();
    let result: SubmitResult;
    try {
      result = await ep.env.submit(arg);
    } catch (err) {
      ep.settling = false;
      await this.fail(ep, err);
      return;
    }
    const action = typed?.text.trim() || (arg ? `submit ${arg}` : "submit");
    // At the turn limit the submit is the forced one: scored and stored on the episode, not a turn.
    const forced = isForcedSubmit(ep.turns.length, ep.turnLimit);
    const turn: StoredTurn = {
      index: ep.turns.length,
      action,
      // Typed in the console or run from the editor as written; else the Submit button.
      source: typed ? typed.source : "button",
      observation: result.agentObservation,
      ok: true,
      reward: result.reward,
      startedAt,
      durationMs: Date.now() - startedAt,
      timedOut: false,
      aborted: false,
    };
    try {
      if (!forced) await this.deps.store.appendTurn(ep.id, turn);
      await this.deps.store.finishEpisode(ep.id, {
        status: "submitted",
        reward: result.reward,
        breakdown: result.breakdown,
        goldObservation: result.goldObservation,
        agentObservation: result.agentObservation,
      });
    } finally {
      ep.settling = false;
    }
    if (!forced) ep.turns.push(turnView(turn));
    ep.status = "submitted";
    // Another annotator's baseline episode on this task still runs: its gold stays hidden from everyone.
    const sealed = (await this.deps.sealedBy?.(ep.task, "showing the gold solution", ep.id)) ?? null;
    ep.submitted = {
      reward: result.reward,
      breakdown: result.breakdown as unknown as SubmittedPayload["breakdown"],
      gold: sealed ? "" : this.deps.goldText(ep.task),
      goldObservation: sealed ? "" : result.goldObservation,
      agentObservation: result.agentObservation,
    };
    ep.send({ type: "submitted", ...ep.submitted, forced: forced || undefined });
    if (sealed) ep.send({ type: "status", message: sealed });
    await this.release(ep);
  }

  /** Ends the episode without a score and frees the sandbox. */
  async abandon(ep: LiveEpisode, reason?: string): Promise<void> {
    if (ep.status !== "running") return;
    ep.running?.abort();
    ep.settling = true;
    try {
      // A study's Skip is a result (the task counts as done) even before any action, so it is
      // stored; any other abandon of an episode never acted on leaves nothing behind.
      if (ep.unstored && isSkipReason(reason)) await this.ensureStored(ep);
      if (!ep.unstored) await this.deps.store.finishEpisode(ep.id, { status: "abandoned", reason });
    } finally {
      ep.settling = false;
    }
    ep.status = "abandoned";
    ep.send({ type: "abandoned" });
    await this.release(ep);
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
      annotator: ep.annotator ?? undefined,
      studyId: ep.studyId ?? undefined,
    };
    if (ep.status === "running") await this.abandon(ep, "restart");
    return this.open(msg, listener);
  }

  /** Closes every live sandbox (server shutdown); stored episodes stay running and resume by replay. */
  async shutdown(): Promise<void> {
    this.closed = true;
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(
      all.map(async (ep) => {
        ep.running?.abort();
        if (ep.idleTimer) clearTimeout(ep.idleTimer);
        await ep.env.close().catch(() => {});
      }),
    );
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

  /**
   * Stores a freshly opened episode, at its first action or submit. A play episode checks the seal
   * again here: a baseline episode may have started on the task since the page was opened.
   */
  private async ensureStored(ep: LiveEpisode): Promise<void> {
    const record = ep.unstored;
    if (!record) return;
    if (ep.mode !== "baseline") await this.assertUnsealed(ep.task, "a play episode on this task");
    await this.deps.store.createEpisode(record);
    ep.unstored = null;
  }

  private async assertUnsealed(task: Task, what: string, exceptId?: string): Promise<void> {
    const message = await this.deps.sealedBy?.(task, what, exceptId);
    if (message) throw new ConflictError(message);
  }

  private attach(ep: LiveEpisode, listener: EpisodeListener): void {
    if (ep.listener && ep.listener !== listener) {
      ep.listener({ type: "error", code: "conflict", message: "this episode was opened in another window", fatal: true });
    }
    ep.listener = listener;
    this.touch(ep);
  }

  private assertRunning(ep: LiveEpisode): void {
    if (ep.status !== "running") throw new ConflictError(`the episode is ${ep.status}: open a new one`);
  }

  private touch(ep: LiveEpisode): void {
    ep.lastActive = Date.now();
    if (ep.idleTimer) clearTimeout(ep.idleTimer);
    ep.idleTimer = setTimeout(() => void this.idleClose(ep), this.deps.idleMs);
    ep.idleTimer.unref();
  }

  private async idleClose(ep: LiveEpisode): Promise<void> {
    if (ep.busy) return this.touch(ep);
    if (this.live.get(ep.id) !== ep) return;
    this.live.delete(ep.id);
    ep.send({ type: "error", code: "timeout", message: "the sandbox was closed after being idle; reconnect to restore it", fatal: true, episodeStatus: "interrupted" });
    ep.listener = null;
    await ep.env.close().catch(() => {});
  }

  /** Creates a sandbox under the cap; evicts the longest-idle detached episode when full. */
  private async acquire(env: EnvName): Promise<Environment> {
    if (this.closed) throw new StudioError("sandbox_unavailable", "the server is shutting down");
    if (this.size >= this.deps.maxSandboxes) {
      const idle = [...this.live.values()].filter((e) => !e.listener && !e.busy).sort((a, b) => a.lastActive - b.lastActive)[0];
      if (idle) {
        this.live.delete(idle.id);
        if (idle.idleTimer) clearTimeout(idle.idleTimer);
        await idle.env.close().catch(() => {});
      } else {
        throw new LimitReachedError(
          `all ${this.deps.maxSandboxes} sandboxes are in use by open episodes; close one or try again when a player finishes (the cap is IC_MAX_SANDBOXES)`,
          { max: this.deps.maxSandboxes },
        );
      }
    }
    this.pending++;
    try {
      return await this.deps.createEnvironment(env);
    } catch (err) {
      this.pending--;
      throw err;
    }
  }

  private async release(ep: LiveEpisode): Promise<void> {
    if (ep.idleTimer) clearTimeout(ep.idleTimer);
    ep.idleTimer = null;
    if (this.live.get(ep.id) === ep) this.live.delete(ep.id);
    await ep.env.close().catch(() => {});
  }

  /** The sandbox broke: record the episode as failed and tell the player. */
  private async fail(ep: LiveEpisode, err: unknown): Promise<void> {
    const e = asStudioError(err);
    ep.status = "error";
    if (!ep.unstored) await this.deps.store.finishEpisode(ep.id, { status: "error", reason: e.message }).catch(() => {});
    ep.send({ type: "error", code: e.code, message: `the sandbox failed: ${e.message}`, fatal: true, episodeStatus: "error" });
    await this.release(ep);
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

function turnView(t: StoredTurn): TurnView {
  return { index: t.index, action: t.action, source: t.source, observation: t.observation, ok: t.ok, reward: t.reward };
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
