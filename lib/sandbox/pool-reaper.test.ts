import { describe, expect, it } from "vitest";
import { WarmPool, type Poolable } from "./pool";
import { listLiveResources, onResourceReaped, type LiveResource } from "./reaper";

/** A sandbox as the pool sees it (the backends' real sandboxes pass the conformance suite; this one records its close). */
class FakeSandbox implements Poolable {
  broken = false;
  closed = false;
  constructor(readonly n: number) {}
  async close(): Promise<void> {
    this.closed = true;
  }
  hold(): void {}
}

describe("a warm pool's waiting sandboxes have an owner and an idle deadline", () => {
  it("lists them as the pool's, and the reaper closes those nobody took (a taken one is left to its taker)", async () => {
    let started = 0;
    const made: FakeSandbox[] = [];
    const start = async () => {
      const s = new FakeSandbox(++started);
      made.push(s);
      return s;
    };
    const pool = new WarmPool<FakeSandbox>(2, 400);
    const key = JSON.stringify(["bash", "/fs/fs1", "/", "/", {}]);
    const taken = await pool.take(key, start);
    // Let the refill start its two.
    await new Promise((r) => setTimeout(r, 20));
    const waiting = listLiveResources().filter((r) => r.kind === "sandbox" && r.owner === "pool:bash /fs/fs1");
    expect(waiting).toHaveLength(2);
    expect(waiting.every((r) => r.idleMs === 400 && !r.busy)).toBe(true);

    const reaped: LiveResource[] = [];
    const off = onResourceReaped((r) => reaped.push(r));
    try {
      await new Promise((r) => setTimeout(r, 1200));
    } finally {
      off();
    }
    expect(reaped.filter((r) => r.owner === "pool:bash /fs/fs1")).toHaveLength(2);
    expect(made.filter((s) => s !== taken).every((s) => s.closed)).toBe(true);
    expect(taken.closed).toBe(false);
    expect(listLiveResources().filter((r) => r.owner === "pool:bash /fs/fs1")).toEqual([]);

    // The pool forgot them: the next take starts a fresh one (and refills), never a closed one.
    const next = await pool.take(key, start);
    expect(next.closed).toBe(false);
    expect(next.n).toBeGreaterThan(3);
    await pool.drain();
    expect(listLiveResources().filter((r) => r.owner === "pool:bash /fs/fs1")).toEqual([]);
  });
});
