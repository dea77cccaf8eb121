/**
 * The live sessions of a process, each holding a sandbox: a cap on how many exist at once (a
 * full pool evicts the longest-idle one nobody watches), and an idle close (the session's sandbox
 * is closed; its episode stays stored and resumes by replay). Client-safe: no server code.
 */
import { LimitReachedError, StudioError } from "@/lib/errors";

/** What the pool needs of a live session. */
export interface PooledSession {
  readonly id: string;
  /** Someone is watching it (a connection is attached): never evicted. */
  readonly watched: boolean;
  /** An action or a submit is in flight: neither evicted nor idle-closed. */
  readonly busy: boolean;
  /** Closes its sandbox. */
  closeSandbox(): Promise<void>;
}

export interface SessionPoolOptions<S> {
  /** Most live sandboxes at once. */
  max: number;
  /** Idle time after which a session's sandbox is closed. */
  idleMs: number;
  /** Told when a session is closed for being idle (before its sandbox closes). */
  onIdleClose?(session: S): void;
  /** Told when a session enters the pool. */
  onAdmit?(session: S): void;
  /** Told when a session leaves the pool, whatever the reason (released, evicted, idle, shutdown). */
  onForget?(session: S): void;
  /** Says what to raise the cap with, for the error when the pool is full. */
  capName?: string;
}

export class SessionPool<S extends PooledSession> {
  private readonly live = new Map<string, S>();
  private readonly lastActive = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Sandboxes being created (they count toward the cap). */
  private pending = 0;
  private closed = false;

  constructor(private readonly options: SessionPoolOptions<S>) {}

  /** Live sandboxes, those being created included. */
  get size(): number {
    return this.live.size + this.pending;
  }

  get(id: string): S | undefined {
    return this.live.get(id);
  }

  /**
   * Makes room for one more sandbox and runs `create` (which creates it and the session) under the
   * cap; the session it returns is added to the pool.
   * @throws LimitReachedError when the pool is full of watched or busy sessions
   */
  async admit(create: () => Promise<S>): Promise<S> {
    if (this.closed) throw new StudioError("sandbox_unavailable", "the server is shutting down");
    // Room is checked and the slot taken in one synchronous step, before any await: otherwise
    // concurrent opens all see room and together exceed the cap.
    let evicted: S | undefined;
    if (this.size >= this.options.max) {
      evicted = [...this.live.values()].filter((s) => !s.watched && !s.busy).sort((a, b) => this.lastActive.get(a.id)! - this.lastActive.get(b.id)!)[0];
      if (!evicted) {
        throw new LimitReachedError(
          `all ${this.options.max} sandboxes are in use by open episodes; close one or try again when a player finishes${this.options.capName ? ` (the cap is ${this.options.capName})` : ""}`,
          { max: this.options.max },
        );
      }
      this.forget(evicted);
    }
    this.pending++;
    try {
      if (evicted) await evicted.closeSandbox().catch(() => {});
      const session = await create();
      if (this.closed) {
        await session.closeSandbox().catch(() => {});
        throw new StudioError("sandbox_unavailable", "the server is shutting down");
      }
      this.live.set(session.id, session);
      this.options.onAdmit?.(session);
      this.touch(session);
      return session;
    } finally {
      this.pending--;
    }
  }

  /** The session was active now: its idle timer starts again. */
  touch(session: S): void {
    if (this.live.get(session.id) !== session) return;
    this.lastActive.set(session.id, Date.now());
    clearTimeout(this.timers.get(session.id));
    const timer = setTimeout(() => void this.idleClose(session), this.options.idleMs);
    timer.unref();
    this.timers.set(session.id, timer);
  }

  /** Takes the session out of the pool and closes its sandbox. */
  async release(session: S): Promise<void> {
    this.forget(session);
    await session.closeSandbox().catch(() => {});
  }

  /** Closes every sandbox (shutdown); nothing is admitted after. */
  async shutdown(): Promise<void> {
    this.closed = true;
    const all = [...this.live.values()];
    for (const s of all) this.forget(s);
    await Promise.all(all.map((s) => s.closeSandbox().catch(() => {})));
  }

  private forget(session: S): void {
    if (this.live.get(session.id) !== session) return;
    this.live.delete(session.id);
    clearTimeout(this.timers.get(session.id));
    this.timers.delete(session.id);
    this.lastActive.delete(session.id);
    this.options.onForget?.(session);
  }

  private async idleClose(session: S): Promise<void> {
    if (this.live.get(session.id) !== session) return;
    if (session.busy) return this.touch(session);
    this.forget(session);
    this.options.onIdleClose?.(session);
    await session.closeSandbox().catch(() => {});
  }
}
