import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listMachineProcesses } from "@/lib/sandbox/machine-resources";
import { listLiveResources, onResourceReaped, type LiveResource } from "@/lib/sandbox/reaper";
import { createSqliteEngine, type SqliteEngine } from "./sqlite-engine";

/** Whether an OS process with this id is running. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the resources the reaper ends until `done` says enough (or rejects after `ms`). */
function watchReaper(done: (reaped: LiveResource[]) => boolean, ms = 10_000): Promise<LiveResource[]> {
  const reaped: LiveResource[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`the reaper ended ${reaped.length} resources in ${ms} ms: ${JSON.stringify(reaped)}`));
    }, ms);
    const off = onResourceReaped((r) => {
      reaped.push(r);
      if (done(reaped)) {
        clearTimeout(timer);
        off();
        resolve(reaped);
      }
    });
  });
}

const helpers = (engine: SqliteEngine) =>
  listLiveResources().filter((r) => r.kind === "sqlite-helper" && (r.owner === `pool:${engine.id}` || r.owner.startsWith("session:")));

describe("SQLite helper processes have an owner and an idle deadline", () => {
  let dir: string;
  let engine: SqliteEngine;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ic-sqlite-reaper-"));
    // A real engine with a short deadline (IC_HELPER_IDLE_MS in a server).
    engine = createSqliteEngine({ spiderDir: path.join(dir, "spider"), poolSize: 2, idleMs: 600 });
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists each helper with its owner, and the reaper kills the idle ones (warm and in a session)", async () => {
    const s = await engine.open("singer");
    expect((await s.query("delete from song")).ok).toBe(true);
    const before = helpers(engine);
    const mine = before.find((r) => r.owner === "session:singer");
    expect(mine, JSON.stringify(before)).toBeDefined();
    expect(mine!.pid).toBeGreaterThan(0);
    expect(running(mine!.pid!)).toBe(true);
    const warm = before.filter((r) => r.owner === `pool:${engine.id}`);
    expect(warm.length).toBeGreaterThan(0);
    expect(before.every((r) => r.idleMs === 600 && r.ageMs >= 0)).toBe(true);

    // Nobody uses anything: every helper (the session's and the warm ones) is ended past 600 ms.
    const pids = before.map((r) => r.pid!);
    const reaped = await watchReaper((xs) => pids.every((p) => xs.some((x) => x.pid === p)));
    expect(reaped.find((r) => r.pid === mine!.pid)?.owner).toBe("session:singer");
    for (const p of pids) await vi.waitFor(() => expect(running(p)).toBe(false), { timeout: 5000 });
    expect(helpers(engine).filter((r) => pids.includes(r.pid!))).toEqual([]);

    // The session goes on, on a fresh copy of its database (as after a timeout): the rows are back.
    const r = await s.query("select count(*) from song");
    expect(r).toMatchObject({ ok: false, reset: true, error: expect.stringMatching(/idle too long/) });
    const again = await s.query("select count(*) from song");
    expect(again.ok && again.result.rows).toEqual([[8n]]);
    await s.close();
  });

  it("shows each helper to `icstudio doctor` (read from /proc): owned by this process, with its age and memory", async () => {
    const s = await engine.open("singer");
    try {
      await new Promise((r) => setTimeout(r, 150));
      const pid = helpers(engine).find((r) => r.owner === "session:singer")!.pid!;
      const seen = listMachineProcesses().find((r) => r.id === String(pid));
      expect(seen).toMatchObject({ kind: "sqlite-helper", owner: String(process.pid), ownerAlive: true, host: null });
      expect(seen!.ageMs).toBeGreaterThanOrEqual(100);
      expect(seen!.ageMs).toBeLessThan(60_000);
      expect(seen!.rssBytes).toBeGreaterThan(1_000_000);
    } finally {
      await s.close();
    }
  });

  it("never reaps a helper while its query runs", async () => {
    const s = await engine.open("singer");
    const pid = helpers(engine).find((r) => r.owner === "session:singer")!.pid!;
    const reaped: LiveResource[] = [];
    const off = onResourceReaped((r) => reaped.push(r));
    try {
      // A query that runs some seconds (about 1 s per 3 million rows here), well past the 600 ms deadline.
      const t0 = Date.now();
      const r = await s.query("with recursive c(x) as (select 1 union all select x + 1 from c where x < 12000000) select count(*) from c", {
        timeoutMs: 60_000,
      });
      expect(r.ok, r.ok ? "" : r.error).toBe(true);
      // It did run past the deadline (else this test would say nothing).
      expect(Date.now() - t0).toBeGreaterThan(1200);
      expect(reaped.map((x) => x.pid)).not.toContain(pid);
      expect(running(pid)).toBe(true);
    } finally {
      off();
      await s.close();
    }
  });
});

describe("one SQL engine per process", () => {
  it("is shared by every copy of the engines module (Next.js bundles and server.ts each load their own)", async () => {
    vi.resetModules();
    const a = await import("./engines");
    vi.resetModules();
    const b = await import("./engines");
    expect(a).not.toBe(b);
    const [ea, eb] = await Promise.all([a.getSqlEngine(undefined), b.getSqlEngine(undefined)]);
    expect(ea).toBe(eb);
    await ea.close();
    (globalThis as { __icStudioSqlEngines?: Map<string, unknown> }).__icStudioSqlEngines?.delete("sqlite");
  });
});
