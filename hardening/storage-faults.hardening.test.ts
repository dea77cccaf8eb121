/**
 * Fault: the store's disk is full, or its file system read-only (a small tmpfs mounted for the
 * test; needs root — skipped with a reason otherwise). Writes fail with a StorageError that says
 * so, and nothing is half-written: the episode keeps exactly its committed turns and counters.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { recordFigure } from "./figures";

const mountDir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-hardening-store-"));
let mounted = false;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountDir], { stdio: "pipe" });
  mounted = true;
} catch (err) {
  if (process.env.IC_REQUIRE_DOCKER === "1") throw new Error(`CI must be able to mount a tmpfs for the storage faults: ${(err as Error).message}`);
}
process.env.IC_DB = path.join(mountDir, "studio.db");
const { appendTurn, createEpisode, getEpisodeById } = await import("@/lib/db/episodes");
const { closeStore } = await import("@/lib/db/client");
const { closeRawDb } = await import("@/lib/db/sqlite");
const { StudioError } = await import("@/lib/errors");

afterAll(async () => {
  await closeStore().catch(() => {});
  closeRawDb();
  if (mounted) execFileSync("umount", ["-l", mountDir]);
  fs.rmSync(mountDir, { recursive: true, force: true });
});

const turn = (index: number, observation = `out ${index}`) => ({ index, actor: "human" as const, action: `echo ${index}`, observation, ok: true });

/** The stored state of an episode read straight from the file: turns and counters. */
function storedState(id: string) {
  const db = new Database(process.env.IC_DB!, { readonly: true });
  try {
    const integrity = (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    const ep = db.prepare(`SELECT status, "turnCount" FROM "Episode" WHERE id = ?`).get(id) as { status: string; turnCount: number };
    const turns = (db.prepare(`SELECT "index" FROM "Turn" WHERE "episodeId" = ? ORDER BY "index"`).all(id) as { index: number }[]).map((t) => t.index);
    return { integrity, ...ep, turns };
  } finally {
    db.close();
  }
}

describe.skipIf(!mounted)("store faults", () => {
  it("a full disk: StorageError naming it, no half-written turn, and it recovers once space is back", async () => {
    const ep = await createEpisode({ environment: "bash", dataset: "demo-bash", taskId: "count-python-files", query: "q", playerKind: "human", turnLimit: 50 });
    await appendTurn({ episodeId: ep.id, turn: turn(0) });
    await appendTurn({ episodeId: ep.id, turn: turn(1) });
    const filler = path.join(mountDir, "filler");
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "pipe" });
    } catch {
      /* ENOSPC is the point */
    }
    const big = "x".repeat(1024 * 1024);
    const err = await appendTurn({ episodeId: ep.id, turn: turn(2, big) }).then(
      () => null,
      (e: Error) => e,
    );
    fs.rmSync(filler);
    const state = storedState(ep.id);
    const ok =
      err instanceof StudioError &&
      err.code === "storage" &&
      /full|space/i.test(err.message) &&
      state.integrity === "ok" &&
      state.turnCount === 2 &&
      state.turns.join() === "0,1";
    recordFigure({ section: "faults", row: "store: disk full", tried: 1, passed: ok ? 1 : 0, unit: "handled", extra: { error: err ? `${err.name}` : "none" } });
    expect(err).toBeInstanceOf(StudioError);
    expect((err as InstanceType<typeof StudioError>).code).toBe("storage");
    expect(err!.message).toMatch(/full|space/i);
    expect(state).toMatchObject({ integrity: "ok", status: "running", turnCount: 2, turns: [0, 1] });
    await appendTurn({ episodeId: ep.id, turn: turn(2) });
    expect((await getEpisodeById({ id: ep.id }))!.turns.map((t) => t.index)).toEqual([0, 1, 2]);
  });

  it("a read-only file system: StorageError naming it, nothing changed", async () => {
    const ep = await createEpisode({ environment: "bash", dataset: "demo-bash", taskId: "count-python-files", query: "q", playerKind: "human", turnLimit: 50 });
    await appendTurn({ episodeId: ep.id, turn: turn(0) });
    // An open writable file keeps the mount busy: the store is closed, the file system turned
    // read-only, and the next write reopens the store on it (as a restarted server would).
    await closeStore();
    closeRawDb();
    execFileSync("mount", ["-o", "remount,ro", mountDir]);
    let err: Error | null;
    let err2: Error | null;
    try {
      err = await appendTurn({ episodeId: ep.id, turn: turn(1) }).then(
        () => null,
        (e: Error) => e,
      );
      err2 = await createEpisode({ environment: "bash", dataset: "demo-bash", taskId: "x", query: "q", playerKind: "human", turnLimit: 5 }).then(
        () => null,
        (e: Error) => e,
      );
    } finally {
      await closeStore().catch(() => {});
      closeRawDb();
      execFileSync("mount", ["-o", "remount,rw", mountDir]);
    }
    const state = storedState(ep.id);
    const ok =
      [err, err2].every((e) => e instanceof StudioError && e.code === "storage" && /read-only|readonly|writ/i.test(e.message)) && state.turns.join() === "0";
    recordFigure({ section: "faults", row: "store: read-only", tried: 1, passed: ok ? 1 : 0, unit: "handled", extra: { error: err ? err.name : "none" } });
    for (const e of [err, err2]) {
      expect(e).toBeInstanceOf(StudioError);
      expect((e as InstanceType<typeof StudioError>).code).toBe("storage");
      expect(e!.message).toMatch(/read-only|readonly|writ/i);
    }
    expect(state).toMatchObject({ integrity: "ok", turnCount: 1, turns: [0] });
  });
});
