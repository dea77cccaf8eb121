import "server-only";

import { StringDecoder } from "node:string_decoder";

import { NotFoundError, SandboxError } from "@/lib/errors";
import { SUPERVISOR_SOURCE } from "./supervisor-source";
import type { Limits } from "./limits";
import type { ExecOptions, ExecResult, SandboxProcess, SpawnOptions } from "./types";

/** Where the supervisor's protocol runs: a byte stream each way (bwrap's stdio, a docker attach). */
export interface SupervisorTransport {
  write(data: string): void;
  /** Called by the transport with raw bytes from the supervisor's stdout. */
  onData(listener: (chunk: Buffer) => void): void;
  /** Called once when the stream ends (the sandbox died or was closed). */
  onClose(listener: (reason: string) => void): void;
}

interface SupervisorEvent {
  ev: "ready" | "started" | "out" | "exit" | "ok" | "err";
  id?: number;
  s?: 1 | 2;
  d?: string;
  code?: number | null;
  sig?: number | null;
  trunc?: boolean;
  err?: string;
  msg?: string;
}

interface TaskHandlers {
  out(chunk: Buffer, stream: "stdout" | "stderr"): void;
  exit(code: number | null, signal: number | null, truncated: boolean): void;
  fail(err: SandboxError): void;
}

/** Every sandbox's host name (both backends). */
export const SANDBOX_HOSTNAME = "sandbox";

/**
 * The address the host name resolves to in /etc/hosts: 127.0.1.1, Debian's for a host without a
 * permanent address. A networked docker container's /etc/hosts maps its name to its address, and
 * commands such as `grep \`hostname\` /etc/hosts` count on that; a sandbox has no network, so its
 * name points at loopback.
 */
export const SANDBOX_HOSTNAME_ADDRESS = "127.0.1.1";

/**
 * The sandbox's /etc/hosts: what Docker writes for a container without network given
 * `--add-host sandbox:127.0.1.1` (the docker backend asks for exactly that; the local one writes it).
 */
export const ETC_HOSTS =
  "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n" +
  `${SANDBOX_HOSTNAME_ADDRESS}\t${SANDBOX_HOSTNAME}\n`;

/** The environment every command starts with, before the call's own `env`. */
export const BASE_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/root",
  USER: "root",
  LOGNAME: "root",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TERM: "dumb",
  SHELL: "/bin/bash",
});

/** Runs a caller's listener; its exceptions must not break the protocol stream. */
function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // the listener's own bug: ignored here
  }
}

/** How long a killed command may take to report its end before the sandbox counts as broken. */
const KILL_GRACE_MS = 10_000;

const SIGNAL_NAMES: Record<number, NodeJS.Signals> = {
  1: "SIGHUP",
  2: "SIGINT",
  9: "SIGKILL",
  15: "SIGTERM",
  6: "SIGABRT",
  11: "SIGSEGV",
  13: "SIGPIPE",
  24: "SIGXCPU",
  25: "SIGXFSZ",
};
const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGTERM: 15,
  SIGCONT: 18,
  SIGSTOP: 19,
};

/**
 * The host half of the supervisor protocol, and the parts of `Sandbox` that are the same on every
 * backend: exec with timeout/cap/abort, spawn, killStrays, readFile, writeFile.
 */
export class SupervisorClient {
  private nextId = 1;
  private buf: Buffer = Buffer.alloc(0);
  private readonly tasks = new Map<number, TaskHandlers>();
  private readonly requests = new Map<number, { resolve(ev: SupervisorEvent): void; reject(err: Error): void }>();
  private readonly spawned = new Set<number>();
  private closedReason: string | null = null;
  private readyResolve!: () => void;
  private readyReject!: (err: Error) => void;
  /** Resolves when the supervisor said it is ready; rejects when it died first. */
  readonly ready: Promise<void>;

  constructor(
    private readonly transport: SupervisorTransport,
    private readonly limits: Limits,
    private readonly defaults: { workdir: string; label: string },
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => undefined);
    transport.onData((chunk) => this.onBytes(chunk));
    transport.onClose((reason) => this.onClosed(reason));
    transport.write(JSON.stringify(SUPERVISOR_SOURCE) + "\n");
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** Marks the connection dead (the backend is closing it); every pending call fails. */
  markClosed(reason: string): void {
    this.onClosed(reason);
  }

  private onBytes(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let nl: number;
    while ((nl = this.buf.indexOf(10)) >= 0) {
      const line = this.buf.subarray(0, nl).toString("utf8");
      this.buf = this.buf.subarray(nl + 1);
      if (!line.trim()) continue;
      let ev: SupervisorEvent;
      try {
        ev = JSON.parse(line) as SupervisorEvent;
      } catch {
        continue; // not from the supervisor (e.g. an interpreter warning): ignore
      }
      this.dispatch(ev);
    }
  }

  private dispatch(ev: SupervisorEvent): void {
    if (ev.ev === "ready") {
      this.readyResolve();
      return;
    }
    const id = ev.id ?? -1;
    const task = this.tasks.get(id);
    if (ev.ev === "out" && task) {
      task.out(Buffer.from(ev.d ?? "", "base64"), ev.s === 2 ? "stderr" : "stdout");
    } else if (ev.ev === "exit" && task) {
      this.tasks.delete(id);
      this.spawned.delete(id);
      task.exit(ev.code ?? null, ev.sig ?? null, ev.trunc === true);
    } else if (ev.ev === "err" && task) {
      this.tasks.delete(id);
      this.spawned.delete(id);
      task.fail(new SandboxError(`${this.defaults.label}: could not start the command: ${ev.msg ?? ev.err}`));
    } else if (ev.ev === "ok" || ev.ev === "err") {
      const req = this.requests.get(id);
      if (req) {
        this.requests.delete(id);
        req.resolve(ev);
      }
    }
  }

  private onClosed(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    const err = new SandboxError(`${this.defaults.label}: ${reason}`);
    this.readyReject(err);
    for (const t of this.tasks.values()) t.fail(err);
    for (const r of this.requests.values()) r.reject(err);
    this.tasks.clear();
    this.requests.clear();
  }

  private send(msg: Record<string, unknown>): void {
    if (this.closedReason !== null) throw new SandboxError(`${this.defaults.label}: ${this.closedReason}`);
    this.transport.write(JSON.stringify(msg) + "\n");
  }

  private request(msg: Record<string, unknown>): Promise<SupervisorEvent> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      try {
        this.send({ ...msg, id });
      } catch (err) {
        this.requests.delete(id);
        reject(err);
      }
    });
  }

  private rlimits(): Record<string, number> {
    return { as: this.limits.memoryBytes, fsize: this.limits.fileBytes };
  }

  /** Runs a command to completion; see `Sandbox.exec`. */
  exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    if (argv.length === 0) return Promise.reject(new SandboxError(`${this.defaults.label}: exec needs a command`));
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    const cap = options.maxOutputBytes ?? this.limits.outputBytes;
    const started = performance.now();
    const id = this.nextId++;
    return new Promise<ExecResult>((resolve, reject) => {
      const out: Buffer[] = [];
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let timedOut = false;
      let aborted = false;
      let settled = false;
      const decoder = new StringDecoder("utf8");
      const kill = () => {
        if (!this.closed) this.send({ op: "kill", id, sig: 9 });
      };
      let grace: NodeJS.Timeout | undefined;
      const stuck = () => {
        // The kill was sent but no exit came back: the sandbox no longer answers.
        grace ??= setTimeout(() => {
          if (settled) return;
          this.tasks.delete(id);
          cleanup();
          reject(
            new SandboxError(`${this.defaults.label}: the command did not stop within ${KILL_GRACE_MS / 1000} s of being killed; the sandbox is not answering`),
          );
        }, KILL_GRACE_MS);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
        stuck();
      }, timeoutMs);
      const onAbort = () => {
        aborted = true;
        kill();
        stuck();
      };
      const cleanup = () => {
        settled = true;
        clearTimeout(timer);
        clearTimeout(grace);
        options.signal?.removeEventListener("abort", onAbort);
      };
      this.tasks.set(id, {
        out: (chunk, stream) => {
          if (settled) return;
          out.push(chunk);
          (stream === "stdout" ? stdout : stderr).push(chunk);
          if (options.onOutput) {
            const text = decoder.write(chunk);
            if (text) safely(() => options.onOutput!(text));
          }
        },
        exit: (code, _sig, truncated) => {
          cleanup();
          resolve({
            output: Buffer.concat(out).toString("utf8"),
            stdout: Buffer.concat(stdout).toString("utf8"),
            stderr: Buffer.concat(stderr).toString("utf8"),
            exitCode: code,
            timedOut,
            truncated,
            aborted,
            durationMs: performance.now() - started,
          });
        },
        fail: (err) => {
          cleanup();
          reject(err);
        },
      });
      try {
        this.send({
          op: "run",
          id,
          argv,
          cwd: options.cwd ?? this.defaults.workdir,
          env: options.replaceEnv ? { ...options.env } : { ...BASE_ENV, ...options.env },
          input: options.stdin !== undefined ? Buffer.from(options.stdin).toString("base64") : undefined,
          cap,
          limits: this.rlimits(),
        });
      } catch (err) {
        this.tasks.delete(id);
        cleanup();
        reject(err);
        return;
      }
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Starts a long-running process with open stdin; see `Sandbox.spawn`. */
  spawn(argv: string[], options: SpawnOptions = {}): SandboxProcess {
    if (argv.length === 0) throw new SandboxError(`${this.defaults.label}: spawn needs a command`);
    const id = this.nextId++;
    const listeners = new Set<(chunk: Buffer, stream: "stdout" | "stderr") => void>();
    let exitedResolve!: (v: { exitCode: number | null; signal: string | null }) => void;
    const exited = new Promise<{ exitCode: number | null; signal: string | null }>((r) => (exitedResolve = r));
    let done = false;
    this.tasks.set(id, {
      out: (chunk, stream) => {
        for (const l of listeners) safely(() => l(chunk, stream));
      },
      exit: (code, sig) => {
        done = true;
        exitedResolve({ exitCode: code, signal: sig === null ? null : (SIGNAL_NAMES[sig] ?? `SIG${sig}`) });
      },
      fail: () => {
        // The sandbox died: the process is gone with it.
        done = true;
        exitedResolve({ exitCode: null, signal: "SIGKILL" });
      },
    });
    this.spawned.add(id);
    try {
      this.send({
        op: "run",
        id,
        argv,
        cwd: options.cwd ?? this.defaults.workdir,
        env: { ...BASE_ENV, ...options.env },
        keep: true,
        cap: null,
        limits: this.rlimits(),
      });
    } catch (err) {
      this.tasks.delete(id);
      this.spawned.delete(id);
      throw err;
    }
    return {
      write: (data) => {
        if (done || this.closed) return;
        this.send({ op: "write", id, d: Buffer.from(data).toString("base64") });
      },
      onData: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      exited,
      kill: (signal: NodeJS.Signals = "SIGKILL") => {
        if (done || this.closed) return;
        this.send({ op: "kill", id, sig: SIGNAL_NUMBERS[signal] ?? 9 });
      },
    };
  }

  /** Kills every process but the supervisor and the spawned ones; see `Sandbox.killStrays`. */
  async killStrays(): Promise<void> {
    await this.request({ op: "strays", keep: [...this.spawned] });
  }

  async readFile(path: string): Promise<Buffer> {
    const ev = await this.request({ op: "read", path });
    if (ev.ev === "err") {
      if (ev.err === "ENOENT") throw new NotFoundError(`file ${path} in the sandbox`, { path });
      throw new SandboxError(`${this.defaults.label}: cannot read ${path}: ${ev.msg}`, { path, errno: ev.err });
    }
    return Buffer.from(ev.d ?? "", "base64");
  }

  async writeFile(path: string, data: string | Buffer): Promise<void> {
    const ev = await this.request({ op: "write_file", path, d: Buffer.from(data).toString("base64") });
    if (ev.ev === "err") throw new SandboxError(`${this.defaults.label}: cannot write ${path}: ${ev.msg}`, { path, errno: ev.err });
  }

  /** Unpacks a tar archive into `dir` (the docker backend's task files). */
  async untar(dir: string, tar: Buffer): Promise<void> {
    const ev = await this.request({ op: "untar", path: dir, d: tar.toString("base64") });
    if (ev.ev === "err") throw new SandboxError(`${this.defaults.label}: cannot unpack files into ${dir}: ${ev.msg}`, { dir });
  }

  /**
   * Makes `dir` (a size-capped tmpfs holding the task's files) the sandbox's root, with the system
   * directories read-only over it, and then drops every capability the supervisor held for that. The
   * docker backend's whole-root file systems: the container's own root lives on the engine's
   * uncapped writable layer.
   */
  async pivotRoot(dir: string): Promise<void> {
    const ev = await this.request({ op: "pivot", path: dir });
    if (ev.ev === "err") throw new SandboxError(`${this.defaults.label}: cannot make ${dir} the root: ${ev.msg}`, { dir });
  }

  async ping(): Promise<void> {
    await this.request({ op: "ping" });
  }
}
