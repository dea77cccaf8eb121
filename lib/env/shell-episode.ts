import "server-only";
import type { Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { timeoutNote, truncationNote } from "@/lib/sandbox/limits";
import type { Sandbox } from "@/lib/sandbox/types";
import { IntercodeExecutor } from "./intercode-run";
import { DEFAULT_PROFILE, type ProfileName } from "./profiles";
import { ShellSession } from "./shell-session";
import type { EnvironmentOptions, StepOptions, StepResult } from "./types";

/** The note an observation carries when Ctrl+C stopped its action. */
export const INTERRUPT_NOTE = "\n^C [action interrupted]";

/** Formats a shell result as the observation the agent sees. */
export function observationOf(
  r: { output: string; timedOut: boolean; aborted: boolean; truncated: boolean },
  limits: { timeoutMs: number; outputBytes: number },
): string {
  let obs = r.output;
  if (r.truncated) obs += truncationNote(limits.outputBytes);
  if (r.timedOut) obs += timeoutNote(limits.timeoutMs);
  if (r.aborted) obs += INTERRUPT_NOTE;
  return obs;
}

/**
 * An episode of a persistent bash shell in a sandbox, what the bash and ctf environments share:
 * starting it (the previous episode's sandbox goes first), running an action as the agent sees
 * it, refusing work before reset and after submit, and freeing it.
 */
export abstract class ShellEpisode<T extends Task> {
  task: T | null = null;
  protected sandbox: Sandbox | null = null;
  protected shell: ShellSession | null = null;
  /** Under a profile that runs each action as InterCode did (`shell.executor` row): its executor, instead of `shell`. */
  protected ic: IntercodeExecutor | null = null;
  protected lastObservation = "";
  protected done = false;

  constructor(protected readonly options: EnvironmentOptions = {}) {}

  /** Which profile's semantics this episode runs under (lib/env/profiles.ts). */
  protected get profile(): ProfileName {
    return this.options.profile ?? DEFAULT_PROFILE;
  }

  /**
   * Closes the previous episode and starts a shell in `cwd` of the sandbox `open` gives;
   * `setup` (given the sandbox) returns commands the shell runs before the first action.
   * With `executor` (the profile's `bash.executor` / `ctf.executor` row says so) there is no
   * shell: an InterCode executor with `executor.env` as the whole environment runs each action
   * (`setup` is not used).
   */
  protected async begin(
    task: T,
    open: () => Promise<Sandbox>,
    cwd: string,
    setup?: (sandbox: Sandbox) => Promise<string>,
    executor?: { env: Record<string, string>; wrap: "bash-c" | "cmd-prefix" },
  ): Promise<Sandbox> {
    this.retire();
    this.task = task;
    this.done = false;
    this.lastObservation = "";
    const sandbox = await open();
    this.sandbox = sandbox;
    if (executor) {
      this.ic = new IntercodeExecutor(sandbox, { env: executor.env, home: cwd, wrap: executor.wrap });
      return sandbox;
    }
    this.shell = new ShellSession(sandbox, { cwd });
    const commands = setup ? await setup(sandbox) : "";
    await this.shell.ready(commands ? `${commands}\ntrue` : "true");
    return sandbox;
  }

  /**
   * Starts the next episode in the sandbox of the last one, as InterCode's long-lived containers
   * did: when an executor is live and `sameRoot` holds. Returns false when a fresh sandbox is needed.
   */
  protected async continueInSandbox(task: T, sameRoot: boolean): Promise<boolean> {
    if (!this.ic || !this.sandbox || !sameRoot) return false;
    try {
      await this.ic.resetContainer();
    } catch {
      return false;
    }
    this.task = task;
    this.done = false;
    this.lastObservation = "";
    return true;
  }

  /** @throws BadInputError before reset and after submit. */
  protected live(): { sandbox: Sandbox; task: T } {
    if (!this.sandbox || !(this.shell || this.ic) || !this.task) throw new BadInputError("the episode has not started (call reset first)", "episode");
    if (this.done) throw new BadInputError("the episode has ended (it was submitted)", "episode");
    return { sandbox: this.sandbox, task: this.task };
  }

  /** Runs one action in the shell (within the sandbox's limits); it becomes the last observation. */
  protected async runAction(action: string, options: StepOptions): Promise<StepResult> {
    const { sandbox } = this.live();
    if (this.ic) {
      const r = await this.ic.run(action);
      this.lastObservation = r.observation;
      options.onOutput?.(r.observation);
      return { observation: r.observation, ok: r.ok, done: false, ...(r.timedOut ? { timedOut: true } : {}) };
    }
    const shell = this.shell!;
    const r = await shell.run(action, {
      timeoutMs: sandbox.limits.timeoutMs,
      maxOutputBytes: sandbox.limits.outputBytes,
      onOutput: options.onOutput,
      signal: options.signal,
    });
    const observation = observationOf(r, sandbox.limits);
    this.lastObservation = observation;
    return {
      observation,
      ok: r.exitCode === 0,
      done: false,
      ...(r.timedOut ? { timedOut: true } : {}),
      ...(r.truncated ? { truncated: true } : {}),
      ...(r.aborted ? { aborted: true } : {}),
    };
  }

  /** Sandboxes of earlier episodes still being torn down (close() waits for them). */
  private readonly retiring = new Set<Promise<void>>();

  /**
   * Ends the current episode's shell and sandbox without waiting for the sandbox's teardown (a
   * reset need not wait for it: killing, unmounting and removing go on in the background).
   */
  protected retire(): void {
    this.shell?.close();
    this.shell = null;
    this.ic = null;
    const s = this.sandbox;
    this.sandbox = null;
    if (!s) return;
    const closing = s.close().catch(() => undefined);
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  async close(): Promise<void> {
    this.retire();
    await Promise.all([...this.retiring]);
  }
}
