import "server-only";

/**
 * Counts failed credentials (wrong login token, wrong bearer token, unknown session cookie) per
 * client address in a fixed window. Once an address has failed `max` times in the window it is
 * refused (429) until the window ends, right credentials included, so guessing stays slow.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    readonly max = 10,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfter(address: string): number {
    const w = this.windows.get(address);
    if (!w) return 0;
    const left = w.start + this.windowMs - this.now();
    if (left <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return w.failures >= this.max ? Math.ceil(left / 1000) : 0;
  }

  /** Records one failure of `address`. */
  fail(address: string): void {
    const t = this.now();
    let w = this.windows.get(address);
    if (!w || w.start + this.windowMs <= t) {
      if (this.windows.size > 50_000) this.prune(t);
      w = { start: t, failures: 0 };
      this.windows.set(address, w);
    }
    w.failures++;
  }

  private prune(t: number): void {
    for (const [k, w] of this.windows) if (w.start + this.windowMs <= t) this.windows.delete(k);
  }
}
