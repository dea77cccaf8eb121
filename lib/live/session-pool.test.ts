import { describe, expect, it } from "vitest";
import { LimitReachedError } from "@/lib/errors";
import { SessionPool, type PooledSession } from "./session-pool";

/** A session whose "sandbox" is a counter of live ones, so the test sees what exists at once. */
function world() {
  let live = 0;
  let peak = 0;
  let n = 0;
  const make = (watched: boolean) => async (): Promise<PooledSession> => {
    live++;
    peak = Math.max(peak, live);
    await new Promise((r) => setTimeout(r, 5)); // creating a sandbox takes time
    const id = `s${n++}`;
    return {
      id,
      watched,
      busy: false,
      closeSandbox: async () => {
        await new Promise((r) => setTimeout(r, 2));
        live--;
      },
    };
  };
  return { make, live: () => live, peak: () => peak };
}

describe("SessionPool (finding 4: the cap held)", () => {
  it("twelve concurrent admits of watched sessions against a cap of 4: four open, eight are refused", async () => {
    const w = world();
    const pool = new SessionPool<PooledSession>({ max: 4, idleMs: 60_000 });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => pool.admit(w.make(true))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused).toHaveLength(8);
    for (const r of refused) expect(r.reason).toBeInstanceOf(LimitReachedError);
    expect(w.peak()).toBe(4);
    expect(pool.size).toBe(4);
    await pool.shutdown();
  });

  it("concurrent admits that evict idle sessions never hold more than the cap", async () => {
    const w = world();
    const pool = new SessionPool<PooledSession>({ max: 4, idleMs: 60_000 });
    await Promise.all(Array.from({ length: 4 }, () => pool.admit(w.make(false))));
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => pool.admit(w.make(false))));
    // The first four each evict an idle session; the rest find the cap taken by sessions being created.
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(4);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(LimitReachedError);
    expect(w.peak()).toBeLessThanOrEqual(4);
    expect(pool.size).toBe(4);
    expect(w.live()).toBe(4);
    await pool.shutdown();
  });

  it("a failed create gives its slot back", async () => {
    const pool = new SessionPool<PooledSession>({ max: 1, idleMs: 60_000 });
    await expect(pool.admit(async () => Promise.reject(new Error("no sandbox")))).rejects.toThrow("no sandbox");
    expect(pool.size).toBe(0);
    const w = world();
    await pool.admit(w.make(true));
    expect(pool.size).toBe(1);
    await pool.shutdown();
  });
});

describe("SessionPool", () => {
  const session = (id: string, over: Partial<{ watched: boolean; busy: boolean }> = {}) => {
    const s = { id, watched: over.watched ?? false, busy: over.busy ?? false, closed: 0, closeSandbox: async () => void s.closed++ };
    return s satisfies PooledSession;
  };

  it("caps live sandboxes, evicting the longest-idle unwatched one, and refuses when all are in use", async () => {
    const pool = new SessionPool<ReturnType<typeof session>>({ max: 2, idleMs: 60_000, capName: "IC_MAX_SANDBOXES" });
    const a = await pool.admit(async () => session("a"));
    await new Promise((r) => setTimeout(r, 5));
    const b = await pool.admit(async () => session("b", { watched: true }));
    const c = await pool.admit(async () => session("c", { watched: true }));
    expect(a.closed).toBe(1);
    expect(pool.get("a")).toBeUndefined();
    expect(pool.size).toBe(2);
    await expect(pool.admit(async () => session("d"))).rejects.toThrow(/all 2 sandboxes are in use.*IC_MAX_SANDBOXES/);
    await pool.release(b);
    expect(b.closed).toBe(1);
    await pool.shutdown();
    expect(c.closed).toBe(1);
    await expect(pool.admit(async () => session("e"))).rejects.toThrow(/shutting down/);
  });

  it("closes a session idle for idleMs (not while it is busy) and says so", async () => {
    const told: string[] = [];
    const pool = new SessionPool<ReturnType<typeof session>>({ max: 2, idleMs: 20, onIdleClose: (s) => told.push(s.id) });
    const busy = await pool.admit(async () => session("busy", { busy: true }));
    const idle = await pool.admit(async () => session("idle"));
    await new Promise((r) => setTimeout(r, 80));
    expect(told).toEqual(["idle"]);
    expect(idle.closed).toBe(1);
    expect(pool.get("busy")).toBe(busy);
    await pool.shutdown();
  });
});
