import { execFileSync } from "node:child_process";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shutdownSandboxBackends } from "@/lib/sandbox";
import { config } from "@/lib/config";
import { BadInputError } from "@/lib/errors";
import { cloneFileSystem, ensureFileSystem, FS_NAMES } from "./bash-fs";
import { checkGold, loadGoldExceptions, mapLimit, readNl2BashTasks, runGold } from "./fs-check";
import { parseManifest } from "./fs-manifest";
import { sharedIntercodeDir } from "./paths";
import { bashTaskSchema } from "./types";

const repo = path.resolve(__dirname, "../..");

afterAll(() => shutdownSandboxBackends());

describe("file system manifests", () => {
  it("rejects a bad entry, naming the file and the entry", () => {
    const raw = { name: "x", description: "d", roots: ["testbed"], defaultMtime: "-1d", entries: [{ path: "../escape", type: "file", content: "" }] };
    expect(() => parseManifest(raw, "x.json")).toThrow(BadInputError);
    expect(() => parseManifest(raw, "x.json")).toThrow(/x\.json: entries\.0 \(\.\.\/escape\)/);
    const badTime = { ...raw, entries: [{ path: "a", type: "file", mtime: "yesterday" }] };
    expect(() => parseManifest(badTime, "y.json")).toThrow(/y\.json: entries\.0\.mtime/);
  });

  it("builds each tree once, with its git repository at the root, and clones it with the manifest's times", async () => {
    const dir = await ensureFileSystem("fs1");
    expect(await ensureFileSystem("fs1")).toBe(dir);
    expect((await fsp.stat(dir)).mode & 0o777).toBe(0o755);
    const log = execFileSync("git", ["-C", dir, "log", "--format=%an %ad", "--date=iso-strict"], { encoding: "utf8" });
    expect(log.trim()).toBe("InterCode Studio 2024-01-01T00:00:00+00:00");
    const dest = await fsp.mkdtemp(path.join(os.tmpdir(), "ic-fs-test-"));
    try {
      const now = Date.UTC(2030, 0, 1);
      await cloneFileSystem("fs1", dest, { nowMs: now });
      const status = execFileSync("git", ["-C", dest, "status", "--short"], { encoding: "utf8" });
      expect(status).toBe("");
      expect((await fsp.stat(dest)).mode & 0o777).toBe(0o755);
      const fresh = await fsp.stat(path.join(dest, "testbed/dir3/subdir1/subsubdir1/tmp/session_new.tmp"));
      expect(fresh.mtimeMs).toBe(now - 3600_000);
      const old = await fsp.stat(path.join(dest, "testbed/Hello.java"));
      expect(old.mtime.toISOString()).toBe("2015-06-01T12:00:00.000Z");
      expect((await fsp.stat(path.join(dest, "testbed/dir1/locked.sh"))).mode & 0o7777).toBe(0o553);
      expect(await fsp.readlink(path.join(dest, "testbed/dir3/latest.log"))).toBe("/testbed/dir3/server.log");
      expect((await fsp.readdir(path.join(dest, "testbed/dir3/empty_dir"))).length).toBe(0);
    } finally {
      await fsp.rm(dest, { recursive: true, force: true });
    }
  });
});

describe("access times of a file system's host copy", () => {
  it("stay the manifest's however often the copy is cloned into sandboxes (fs3:3, find -amin -60)", { timeout: 120_000 }, async () => {
    // A clock no other test uses: a host copy of its own, not yet read by any sandbox.
    const nowMs = Date.now();
    const gold = "find /workspace -amin -60";
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push((await runGold("fs3", gold, { nowMs })).stdout);
    // Only the file the manifest gives a recent access time; the directories keep theirs (2022).
    expect(runs).toEqual(Array(3).fill("/workspace/dir1/long.txt\n"));
  });
});

/**
 * Every NL2Bash gold command must print something or change a file, exit 0, write nothing to
 * stderr and give the same result twice, unless datasets/bash/gold-exceptions.json explains why not.
 */
describe("NL2Bash gold commands on the project's file systems", async () => {
  const exceptions = await loadGoldExceptions();
  // The local sandbox, or docker when IC_SANDBOX asks for it.
  const backend = config().backend === "docker" ? "docker" : "local";
  const nowMs = Date.now();
  for (const fs of FS_NAMES) {
    it(`${fs}: every gold runs cleanly or is a documented exception`, { timeout: 900_000 }, async () => {
      await ensureFileSystem(fs);
      const tasks = await readNl2BashTasks(sharedIntercodeDir(), Number(fs.slice(2)) as 1 | 2 | 3 | 4);
      // Three times InterCode's 10 s, so that a loaded machine does not turn a slow gold into a
      // failure; InterCode's 10 s for a gold documented as one that may time out (fs1:55 never ends).
      // Four at a time: a sandbox's start and end wait on the disk as much as on the CPU.
      const timeoutMs = (i: number) => (exceptions[fs]?.[String(i)]?.allow.includes("timeout") ? 10_000 : 30_000);
      const checks = await mapLimit(tasks, 4, (t, i) => checkGold(fs, i, t, nowMs, { timeoutMs: timeoutMs(i), backend }));
      const unexplained = checks
        .map((c) => ({ c, allowed: exceptions[fs]?.[String(c.index)]?.allow ?? [] }))
        .filter(({ c, allowed }) => c.issues.some((x) => !allowed.includes(x)))
        .map(({ c }) => `${fs}:${c.index} [${c.issues.join(",")}] ${JSON.stringify(c.run.stderr.slice(0, 200))}`);
      expect(unexplained).toEqual([]);
      const clean = checks.filter((c) => c.issues.length === 0).length;
      const documented = Object.keys(exceptions[fs] ?? {}).length;
      // At least every task without a documented exception is clean.
      expect(clean).toBeGreaterThanOrEqual(tasks.length - documented);
    });
  }
});

/** The project's own bash tasks: every gold must run cleanly (no exceptions allowed). */
describe("demo bash tasks", () => {
  it("has at least 20 valid tasks whose golds all print or change something, cleanly and deterministically", { timeout: 600_000 }, async () => {
    const raw = JSON.parse(await fsp.readFile(path.join(repo, "datasets/demo-bash.json"), "utf8")) as { tasks: Record<string, unknown>[] };
    const tasks = raw.tasks.map((t, index) => bashTaskSchema.parse({ ...t, env: "bash", dataset: "demo-bash", index }));
    expect(tasks.length).toBeGreaterThanOrEqual(20);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    const nowMs = Date.now();
    const checks = await mapLimit(tasks, 2, (t, i) => checkGold(t.fs, i, t, nowMs));
    const bad = checks.filter((c) => c.issues.length > 0).map((c) => `${tasks[c.index]!.id} [${c.issues.join(",")}] ${c.run.stderr.slice(0, 200)}`);
    expect(bad).toEqual([]);
    // Both kinds of task are there: some answer with output, some change files.
    expect(checks.filter((c) => c.run.status !== "").length).toBeGreaterThanOrEqual(6);
    expect(checks.filter((c) => c.run.stdout.trim() !== "").length).toBeGreaterThanOrEqual(12);
  });
});
