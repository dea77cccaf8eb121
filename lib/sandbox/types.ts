import type { Limits } from "./limits";

/**
 * Which environment image / root file system a sandbox is made from. `bash-intercode` is the bash
 * image of the `intercode` profile (row `bash.image`: InterCode's tools and versions); the local
 * backend shares the host's /usr, so there it is the same as `bash`.
 */
export const SANDBOX_IMAGE_NAMES = ["bash", "bash-intercode", "python", "sql", "ctf"] as const;
export type SandboxImage = (typeof SANDBOX_IMAGE_NAMES)[number];

/** What to create. Backends differ in how, never in what the code inside sees. */
export interface SandboxSpec {
  image: SandboxImage;
  /**
   * A host directory whose contents become a private, writable copy at `mountAt` inside the
   * sandbox (the task's file system, e.g. datasets/bash/fs1 → /testbed). Changes never reach
   * the host directory.
   */
  files?: { hostDir: string; mountAt: string };
  /** Working directory for exec/spawn when none is given. Defaults to `files.mountAt` or `/`. */
  workdir?: string;
  /** Overrides of DEFAULT_LIMITS for this sandbox. */
  limits?: Partial<Limits>;
}

export interface ExecOptions {
  cwd?: string;
  /** Written to the process's stdin, which is then closed. */
  stdin?: string | Buffer;
  /** Overrides the sandbox's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the sandbox's `outputBytes` for this call. */
  maxOutputBytes?: number;
  env?: Record<string, string>;
  /**
   * When true, `env` is the process's whole environment instead of additions to the sandbox's
   * base one (PATH, HOME, LANG, ...): what a profile that reproduces another image's environment needs.
   */
  replaceEnv?: boolean;
  /** Aborting kills the process (Ctrl+C in the playground). */
  signal?: AbortSignal;
  /** Called with each chunk of output as it is produced (stdout and stderr interleaved). */
  onOutput?: (chunk: string) => void;
}

export interface ExecResult {
  /** stdout and stderr interleaved in the order they were produced, cut at the output cap. */
  output: string;
  stdout: string;
  stderr: string;
  /** Exit status, or null when the process was killed. */
  exitCode: number | null;
  timedOut: boolean;
  /** True when output past the cap was dropped. */
  truncated: boolean;
  /** True when the call was aborted through `signal`. */
  aborted: boolean;
  durationMs: number;
}

/** A long-running process inside the sandbox with open pipes (persistent shells, interpreters). */
export interface SandboxProcess {
  write(data: string | Buffer): void;
  /** Subscribes to output (stdout and stderr both, as raw bytes). Returns an unsubscribe function. */
  onData(listener: (chunk: Buffer, stream: "stdout" | "stderr") => void): () => void;
  /** Resolves when the process ends. */
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
  /** Sends a signal to the process and everything it started. */
  kill(signal?: NodeJS.Signals): void;
}

export interface SpawnOptions {
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * A live sandbox. Everything run in it has no network, a private writable copy of its files,
 * and the limits it was created with.
 */
export interface Sandbox {
  readonly backend: "local" | "docker";
  readonly id: string;
  readonly limits: Limits;
  /**
   * Runs one command (argv, or a string run by `/bin/sh -c`) to completion.
   * Never throws for the command's own failure, timeout or output cap: those are in the result.
   * @throws SandboxError when the sandbox itself is gone or broken.
   */
  exec(command: string | string[], options?: ExecOptions): Promise<ExecResult>;
  /**
   * Starts a long-running process (a persistent shell or interpreter) with open stdin.
   * @throws SandboxError when the sandbox is gone or broken.
   */
  spawn(argv: string[], options?: SpawnOptions): SandboxProcess;
  /** Kills every process in the sandbox except the long-running ones started with `spawn`. */
  killStrays(): Promise<void>;
  /** @throws NotFoundError when the path does not exist. */
  readFile(path: string): Promise<Buffer>;
  /** Creates parent directories as needed. */
  writeFile(path: string, data: string | Buffer): Promise<void>;
  /** Frees everything; safe to call twice. */
  close(): Promise<void>;
}

export interface SandboxBackend {
  readonly kind: "local" | "docker";
  /** Whether this backend can run here, and if not, why (and how to install it). */
  available(): Promise<{ ok: true } | { ok: false; reason: string }>;
  create(spec: SandboxSpec): Promise<Sandbox>;
  /** Frees pools and other shared resources. */
  shutdown?(): Promise<void>;
}
