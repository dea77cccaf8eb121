import "server-only";

import { SandboxError } from "@/lib/errors";
import type { SupervisorClient } from "./supervisor-client";
import type { Limits } from "./limits";
import type { ExecOptions, ExecResult, Sandbox, SandboxProcess, SpawnOptions } from "./types";

/**
 * What the local and docker sandboxes share: the sandbox supervisor (PID 1, driven through
 * `client`) does all the work. A backend only starts the sandbox, says how it keeps the Node
 * process alive (`hold`) and how it is freed (`close`, which must set `closing`).
 */
export abstract class SupervisorSandbox implements Sandbox {
  abstract readonly backend: "local" | "docker";
  /** Set by `close()`; every call after it throws SandboxError. */
  protected closing: Promise<void> | null = null;

  constructor(
    readonly id: string,
    readonly limits: Limits,
    protected readonly client: SupervisorClient,
  ) {}

  /** @throws SandboxError when the sandbox was closed. */
  protected alive(): void {
    if (this.closing) throw new SandboxError(`${this.backend} sandbox ${this.id} is closed`);
  }

  /** The sandbox's supervisor is gone (it died, or its container or process did): it cannot be used. */
  get broken(): boolean {
    return this.client.closed;
  }

  /** Whether the sandbox keeps the Node process alive (not while it waits in a warm pool). */
  abstract hold(active: boolean): void;

  abstract close(): Promise<void>;

  async exec(command: string | string[], options?: ExecOptions): Promise<ExecResult> {
    this.alive();
    return this.client.exec(command, options);
  }

  spawn(argv: string[], options?: SpawnOptions): SandboxProcess {
    this.alive();
    return this.client.spawn(argv, options);
  }

  async killStrays(): Promise<void> {
    this.alive();
    await this.client.killStrays();
  }

  async readFile(p: string): Promise<Buffer> {
    this.alive();
    return this.client.readFile(p);
  }

  async writeFile(p: string, data: string | Buffer): Promise<void> {
    this.alive();
    await this.client.writeFile(p, data);
  }
}
