import "server-only";
import type { Task } from "@/lib/datasets/types";
import { isSkipReason } from "@/lib/episodes/rules";
import type { EpisodeSession } from "@/lib/episodes/session";
import { parseSubmit } from "@/lib/env/submit";
import { asStudioError, ConflictError } from "@/lib/errors";
import type { PublicTask } from "@/lib/tasks/public-task";
import type { RecordingChunk } from "@/lib/recording/events";
import type { EpisodeView, Feedback, LiveEventInput, PlayMode, SubmittedPayload, TurnView } from "./events";
import { turnEndOf } from "./from-engine";
import { LiveChannel } from "./live-channel";
import type { RecordMessage } from "./protocol";
import type { SessionPool } from "./session-pool";

/**
 * The person's side of a live episode (the model's is ./model-actor.ts; ./live-episodes.ts is the
 * manager of both): its actions come from the websocket, one at a time, each written to the store
 * before the player hears of its end; a submit scores it and shows the gold, unless sealed.
 */

export interface PlayConditions {
  mode: PlayMode;
  feedback: Feedback;
  annotator: string | null;
  studyId: string | null;
}

/** A person's live episode: a session (lib/episodes/session.ts) with the playground's view of it and the player attached to it. */
export class PersonEpisode {
  readonly actor = "person" as const;
  readonly publicView: PublicTask;
  /** The one player attached (./live-channel.ts). */
  readonly channel = LiveChannel.player();
  submitted: SubmittedPayload | null = null;
  /** The running action's abort controller (Ctrl+C); non-null while an action runs. */
  running: AbortController | null = null;
  /** Set while a submit, restart or abandon is in progress. */
  settling = false;
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
    return this.channel.watched;
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
    this.channel.send(message);
  }
}

/** What the person's actions need from the outside world (part of the manager's LiveEpisodeDeps). */
export interface PersonActorDeps {
  /** The gold solution shown after a submit (lib/episodes/gold.ts goldShown). */
  goldText(task: Task): string;
  /** Stores a batch of an episode's recording under its cap (lib/db/recordings.ts); absent: recordings are not kept. */
  appendRecording?(episodeId: string, chunk: RecordingChunk): Promise<{ stored: boolean; truncated: boolean }>;
  /**
   * The baseline seal (lib/studies/baseline-seal.ts): the refusal message for `what` when the task
   * has an unsubmitted baseline episode other than `exceptId`, else null. Absent: nothing is sealed.
   */
  sealedBy?(task: Task, what: string, exceptId?: string, studyId?: string | null): Promise<string | null>;
}

/** A person's actions on their live episode: run an action, stop it, submit, abandon, store the recording. */
export class PersonActor {
  constructor(
    private readonly deps: PersonActorDeps,
    private readonly pool: SessionPool<PersonEpisode>,
  ) {}

  /** Runs one action (a submit typed as an action is handled as a submit). */
  async action(ep: PersonEpisode, text: string, source: "console" | "editor"): Promise<void> {
    assertRunning(ep);
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
    // The console shows the step's own output and its cut (the stored observation is the scored one).
    ep.send({ ...turnEndOf(turn), observation: step.observation, truncated: step.truncated || undefined, table: step.table });
    if (ep.session.limitReached) ep.send({ type: "limitReached", turns: ep.turns.length, limit: ep.turnLimit, message: limitMessage(ep) });
  }

  /** Stops the running action (Ctrl+C); the episode goes on. */
  interrupt(ep: PersonEpisode): void {
    ep.running?.abort();
  }

  /**
   * Stores a batch of the episode's recording. Before the episode is stored (its first action)
   * there is nothing to attach it to: the browser holds its events until then, and a batch that
   * comes early is refused with a message. At the cap the player is told once that recording stopped.
   */
  async record(ep: PersonEpisode, chunk: RecordMessage): Promise<void> {
    if (!this.deps.appendRecording) return;
    if (!ep.session.stored) throw new ConflictError("the episode is not stored yet: send its recording after its first action");
    const { type: _type, ...rest } = chunk;
    const r = await this.deps.appendRecording(ep.id, rest);
    if (r.truncated && !ep.recordingCapped) {
      ep.recordingCapped = true;
      ep.send({ type: "status", message: "this episode's recording reached its size cap: later keystrokes are not recorded (the turns still are)" });
    }
  }

  /** Scores the episode, stores the result, sends it with the gold solution, and frees the sandbox. */
  async submit(ep: PersonEpisode, arg?: string, typed?: { text: string; source: "console" | "editor" }): Promise<void> {
    assertRunning(ep);
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
  async abandon(ep: PersonEpisode, reason?: string): Promise<void> {
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

  /** The sandbox broke: record the episode as failed and tell the player. */
  private async fail(ep: PersonEpisode, err: unknown): Promise<void> {
    const e = asStudioError(err);
    await ep.session.fail(e.message).catch(() => {});
    ep.send({ type: "error", code: e.code, message: `the sandbox failed: ${e.message}`, fatal: true, episodeStatus: "error" });
    await this.pool.release(ep);
  }
}

function assertRunning(ep: PersonEpisode): void {
  if (ep.status !== "running") throw new ConflictError(`the episode is ${ep.status}: open a new one`);
}

function limitMessage(ep: PersonEpisode): string {
  return `turn limit reached (${ep.turns.length} / ${ep.turnLimit}): submit to score the episode`;
}
