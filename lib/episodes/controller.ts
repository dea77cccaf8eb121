import type { HumanTurnSource } from "./rules";
import { ConflictError } from "@/lib/errors";
import type { Turn } from "./turn";
import type { ControllerMode } from "./agent-event";

/** What the loop does next. */
export type Gate =
  | { kind: "model" }
  | { kind: "human"; action: string; source: HumanTurnSource; resolve: (turn: Turn | null) => void; reject: (err: unknown) => void }
  | { kind: "stop" };

/**
 * Drives a running episode from outside (the playground's buttons, Ctrl+C in a batch run):
 * pause, step one turn, resume, stop, and take over, in which a person's actions are run in the
 * same episode (recorded with actor "human") until they hand it back to the model.
 *
 * Pause and take-over take effect between turns; stop aborts the turn in flight.
 */
export class EpisodeController {
  private mode: ControllerMode;
  private steps = 0;
  private readonly humanQueue: { action: string; source: HumanTurnSource; resolve: (t: Turn | null) => void; reject: (e: unknown) => void }[] = [];
  private wake: (() => void) | null = null;
  private readonly abort = new AbortController();
  private readonly listeners = new Set<(mode: ControllerMode) => void>();

  constructor(options: { paused?: boolean } = {}) {
    this.mode = options.paused ? "paused" : "running";
  }

  /** Aborted when the episode is stopped; the loop passes it to model calls and actions. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get state(): ControllerMode {
    return this.mode;
  }

  /** Called on every change of mode. Returns an unsubscribe function. */
  onChange(listener: (mode: ControllerMode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(mode: ControllerMode): void {
    if (this.mode === "stopped") return;
    this.mode = mode;
    for (const l of this.listeners) l(mode);
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** The model stops after the turn in flight. */
  pause(): void {
    if (this.mode === "running") this.set("paused");
  }

  /** The model goes on turn after turn. */
  resume(): void {
    if (this.mode === "paused" || this.mode === "human") this.set("running");
  }

  /** While paused: let the model take exactly one more turn. */
  step(): void {
    if (this.mode === "running" || this.mode === "stopped") return;
    this.steps++;
    if (this.mode === "human") this.set("paused");
    else this.poke();
  }

  /** Ends the episode: the turn in flight is aborted and the episode is left interrupted. */
  stop(reason = "stopped"): void {
    if (this.mode === "stopped") return;
    this.set("stopped");
    this.abort.abort(new Error(reason));
    for (const h of this.humanQueue.splice(0)) h.resolve(null);
    this.poke();
  }

  /** A person takes over: the model stops after the turn in flight and waits for handBack(). */
  takeOver(): void {
    if (this.mode !== "stopped") this.set("human");
  }

  /** The model continues from the history as it now stands. */
  handBack(): void {
    if (this.mode === "human") this.set("running");
  }

  /**
   * Runs a person's action in the episode (after takeOver), recorded with where it was typed
   * (`source`: console, editor, the Submit button, or "api" when the caller does not say). Resolves with the recorded turn, or
   * null when the action ended the episode ("submit", "skip") or the episode stopped first.
   * @throws ConflictError when the episode is not in human mode.
   */
  humanAction(action: string, source: HumanTurnSource = "api"): Promise<Turn | null> {
    if (this.mode !== "human") return Promise.reject(new ConflictError(`cannot run a person's action while the episode is ${this.mode}; take over first`));
    return new Promise((resolve, reject) => {
      this.humanQueue.push({ action, source, resolve, reject });
      this.poke();
    });
  }

  /** For the loop: waits until the next turn may start, and says whose it is. */
  async next(): Promise<Gate> {
    for (;;) {
      if (this.mode === "stopped") return { kind: "stop" };
      const h = this.humanQueue.shift();
      if (h) return { kind: "human", ...h };
      if (this.mode === "running") return { kind: "model" };
      if (this.mode === "paused" && this.steps > 0) {
        this.steps--;
        return { kind: "model" };
      }
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}
