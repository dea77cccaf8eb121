import fs from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { recordFigure } from "./figures";
import { appAvailable, ensureApp } from "./studio-process";
import type { StudioProcess } from "@/lib/testing/studio-server";
import { tempDb, type WsClient } from "@/lib/testing/ws-client";

/** The common frame of a hardening test against a live Studio server. */
export interface LiveFixture {
  /** False without a production build: the test skips and a SKIP figure is recorded. */
  canRun: boolean;
  /** A temporary directory and the store path in it. */
  dir: string;
  db: string;
  /** Sockets to close after the test. */
  sockets: WsClient[];
  /** Registers the server to kill after the test; returns it. */
  track(server: StudioProcess): StudioProcess;
}

/**
 * Sets up a live-server test file: whether it can run (else a SKIP figure for `section`/`row`), a
 * temporary store, and hooks that build the app first (when allowed) and, after, close the
 * sockets, kill the servers and remove the store.
 */
export function liveFixture(prefix: string, figure: { section: string; row: string }): LiveFixture {
  const canRun = appAvailable();
  if (!canRun)
    recordFigure({ section: figure.section, row: figure.row, tried: 0, passed: 0, unit: "skipped: no production build (next build, or IC_HARDENING_BUILD=1)" });
  const { dir, db } = tempDb(prefix);
  const sockets: WsClient[] = [];
  const servers: StudioProcess[] = [];
  beforeAll(() => {
    if (canRun) ensureApp();
  }, 900_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const s of servers) await s.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { canRun, dir, db, sockets, track: (s) => (servers.push(s), s) };
}
