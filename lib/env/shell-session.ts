import "server-only";
import { randomBytes } from "node:crypto";
import type { Sandbox, SandboxProcess } from "@/lib/sandbox/types";
import { exchange, type FrameMarks } from "./framed";

/** The result of one command run in a persistent shell. */
export interface ShellRunResult {
  /** stdout and stderr interleaved in arrival order, cut at the output cap. */
  output: string;
  /** Exit status, or null when the command was stopped (timeout, abort) or the shell died. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  /** The shell had to be restarted (it was stuck, or the command exited it). */
  restarted: boolean;
}

export interface ShellRunOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  onOutput?: (chunk: string) => void;
  signal?: AbortSignal;
}

/**
 * A bash process that lives for a whole episode, so `cd`, variables and functions persist.
 *
 * Protocol: the shell runs a read-eval loop. Each action is sent as one NUL-terminated string and
 * evaluated with stdin from /dev/null (a command that reads stdin sees end of file instead of
 * hanging). After it, the loop writes a frame on stdout — a per-session random nonce, the exit
 * status, the working directory and `export -p` — and a mark on stderr, so both streams are known
 * to be drained. The frame keeps what is needed to rebuild the shell (cwd and exported variables)
 * after an action is stopped (time limit, Ctrl+C, endless output): the shell is killed with it.
 */
export class ShellSession {
  private proc: SandboxProcess | null = null;
  private readonly nonce = randomBytes(8).toString("hex");
  private readonly marks: FrameMarks;
  private cwd: string;
  private exports = "";
  private busy = false;
  private closed = false;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly opts: { cwd: string; shell?: string; env?: Record<string, string> },
  ) {
    this.cwd = opts.cwd;
    this.marks = { frameStart: `\u0000IC${this.nonce}F\u0000`, frameEnd: `\u0000IC${this.nonce}Z\u0000`, errMark: `\u0000IC${this.nonce}E\u0000` };
  }

  /** Starts the shell (idempotent), restoring the last known cwd and exported variables. */
  private start(): SandboxProcess {
    if (this.proc) return this.proc;
    const shell = this.opts.shell ?? "bash";
    // After a restart, the new shell first restores the last known exported variables and cwd.
    const restore = this.exports ? `${this.exports}\ncd -- ${shellQuote(this.cwd)} 2>/dev/null\n` : "";
    // The nonce goes in on standard input, not in the command line: every session's shell then
    // has the same argv, so what `ps -ef` or `pstree -a` shows does not differ between two
    // sandboxes (gold's and the agent's).
    const proc = this.sandbox.spawn([shell, "--norc", "--noprofile", "-c", restore + shellLoopScript()], { cwd: this.opts.cwd, env: this.opts.env });
    proc.write(this.nonce + "\u0000");
    this.proc = proc;
    proc.exited.then(() => {
      if (this.proc === proc) this.proc = null;
    });
    return proc;
  }

  /** Makes sure the shell is up (reset calls it so that the first step pays no start-up), running `setup` first. */
  async ready(setup = "true", timeoutMs = 10_000): Promise<void> {
    const r = await this.run(setup, { timeoutMs, maxOutputBytes: 4096 });
    if (r.exitCode !== 0) throw new Error(`the shell did not start: ${r.output}`);
  }

  /** Runs one command. Never throws for the command's own failure. */
  async run(command: string, o: ShellRunOptions): Promise<ShellRunResult> {
    if (this.busy) throw new Error("ShellSession.run called while a command is running");
    this.busy = true;
    try {
      const proc = this.start();
      const r = await exchange(proc, command.replace(/\u0000/g, "") + "\u0000", this.marks, {
        ...o,
        // Stopping an action stops all of it: the shell goes too (a killed command would otherwise
        // let the rest of its line run). The next action starts a fresh shell with the last cwd
        // and exported variables.
        interrupt: () => {
          if (this.proc === proc) this.proc = null;
          proc.kill("SIGKILL");
          this.sandbox.killStrays().catch(() => {});
        },
        kill: () => {
          if (this.proc === proc) this.proc = null;
          proc.kill("SIGKILL");
        },
      });
      let exitCode: number | null = null;
      if (r.frame !== null) {
        const [status = "1", cwd = this.cwd, ...exp] = r.frame.split("\u0000");
        this.cwd = cwd;
        this.exports = exp.join("\u0000");
        exitCode = r.timedOut || r.aborted ? null : Number(status);
      }
      // Start the replacement shell now, so that the next action does not wait for it.
      if (r.died && !this.closed) this.start();
      return { output: r.output, exitCode, timedOut: r.timedOut, aborted: r.aborted, truncated: r.truncated, restarted: r.died };
    } finally {
      this.busy = false;
    }
  }

  /** The shell's working directory after the last command. */
  get workdir(): string {
    return this.cwd;
  }

  close(): void {
    this.closed = true;
    const p = this.proc;
    this.proc = null;
    p?.kill("SIGKILL");
  }
}

/**
 * The read-eval loop a ShellSession's bash runs (see ShellSession): it reads the session's nonce,
 * the first NUL-terminated string on standard input; then each NUL-terminated action is
 * evaluated, its background jobs waited for, and a frame (status, cwd, `export -p`) ends in `\0IC<nonce>Z\0` on stdout and a mark
 * `\0IC<nonce>E\0` goes to stderr.
 */
export function shellLoopScript(): string {
  return [
    `IFS= read -r -d '' __ic_n`,
    `while IFS= read -r -d '' __ic_cmd; do`,
    `  eval "$__ic_cmd" </dev/null`,
    `  __ic_s=$?`,
    // Jobs the action sent to the background are part of it: the step ends when they do (within
    // its time limit), so what they print and change belongs to this action, not to whichever
    // comes next, and a score right after it sees their work done.
    `  wait`,
    `  printf '\\0IC%sF\\0%s\\0%s\\0' "$__ic_n" "$__ic_s" "$PWD"`,
    `  export -p`,
    `  printf '\\0IC%sZ\\0' "$__ic_n"`,
    `  printf '\\0IC%sE\\0' "$__ic_n" >&2`,
    `done`,
  ].join("\n");
}

/** Quotes a string for bash. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
