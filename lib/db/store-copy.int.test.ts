import { spawnSync } from "node:child_process";
import { appendRecordingChunk, getRecordingByEpisode } from "./recordings";
import { withSql } from "./sql";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { config, parseStoreTarget } from "@/lib/config";
import { ConflictError, StorageError } from "@/lib/errors";
import { importPaths } from "@/lib/trajectories/import-paths";
import { computeStats } from "@/lib/stats/measures";
import { closeStore } from "./client";
import { listEpisodes } from "./episodes";
import { dropPgSchema } from "./postgres";
import { copyStore } from "./store-copy";
import { storeEngines, tempPgStoreUrl } from "@/lib/testing/store";

const root = path.resolve(__dirname, "../..");
const sample = path.join(config().sharedIntercodeDir, "results-sample");
const saved = process.env.IC_DB;
afterEach(async () => {
  await closeStore();
  process.env.IC_DB = saved;
});

function icstudio(args: string[], db?: string) {
  return spawnSync(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "lib/cli/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, ...(db ? { IC_DB: db } : {}) },
    encoding: "utf8",
  });
}

/** What `icstudio stats --json` prints for the store `db` (computed in this process). */
async function statsJson(db: string): Promise<string> {
  process.env.IC_DB = db;
  const out = JSON.stringify(await computeStats(), null, 2) + "\n";
  await closeStore();
  return out;
}

async function importInto(db: string, paths: string[]): Promise<void> {
  process.env.IC_DB = db;
  const rep = await importPaths(paths);
  expect(rep.totals.rejected).toBe(0);
  await closeStore();
}

describe("store copy (SQLite to SQLite)", () => {
  it("copies every row, verified, and refuses a non-empty target unless told to replace it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-copy-"));
    const a = path.join(dir, "a.db");
    const b = path.join(dir, "b.db");
    await importInto(a, [path.join(sample, "sql")]);
    // A recorded session goes along (its startedAt is a BIGINT).
    process.env.IC_DB = a;
    const first = await withSql((q) => q.get<{ id: string }>(`SELECT "id" FROM "Episode" ORDER BY "id" LIMIT 1`));
    await appendRecordingChunk({ episodeId: first!.id, maxBytes: 1000, chunk: { turnIndex: 0, startedAt: 1_764_000_000_123, events: [[0, "i", "x"]] } });
    await closeStore();
    const report = await copyStore({ from: parseStoreTarget(a), to: parseStoreTarget(b) });
    expect(report.counts).toMatchObject({ Episode: 15, ImportedFile: 1, RecordingChunk: 1 });
    expect(report.counts.Annotation).toBeGreaterThan(0);
    process.env.IC_DB = b;
    expect((await getRecordingByEpisode({ episodeId: first!.id })).chunks[0]).toMatchObject({ startedAt: 1_764_000_000_123, events: [[0, "i", "x"]] });
    await closeStore();
    expect(report.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(await statsJson(b)).toBe(await statsJson(a));
    const again = await copyStore({ from: parseStoreTarget(a), to: parseStoreTarget(b) }).catch((e) => e);
    expect(again).toBeInstanceOf(ConflictError);
    // The import's detector tags (machine annotations) are rows of the store too.
    expect(again.message).toMatch(
      /the target .*b\.db is not empty \(Episode 15, Turn \d+, RecordingChunk 1, Annotation \d+, ImportedFile 1\): pass --replace to empty it first/,
    );
    expect((await copyStore({ from: parseStoreTarget(a), to: parseStoreTarget(b), replace: true })).checksum).toBe(report.checksum);
    await expect(copyStore({ from: parseStoreTarget(path.join(dir, "none.db")), to: parseStoreTarget(b) })).rejects.toThrow(StorageError);
    await expect(copyStore({ from: parseStoreTarget(a), to: parseStoreTarget(a) })).rejects.toThrow(/the same store/);

    // The command: its report, and a bad URL named by its flag with the password hidden.
    const cli = icstudio(["store", "copy", "--from", a, "--to", path.join(dir, "c.db"), "--json"]);
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ counts: report.counts, checksum: report.checksum, replaced: false });
    const bad = icstudio(["store", "copy", "--from", a, "--to", "mysql://u:pw@h/db"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--to: unsupported store URL scheme "mysql:\/\/"/);
  }, 300_000);
});

for (const engine of storeEngines().filter((e) => e === "postgresql")) {
  describe(`the store on ${engine} beside SQLite`, () => {
    it("InterCode's sample logs imported into both give identical `icstudio stats --json`; a copy either way keeps every row, the checksum and search", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-pgcopy-"));
      const lite = path.join(dir, "lite.db");
      const pg = tempPgStoreUrl("stats");
      const pg2 = tempPgStoreUrl("copy");
      try {
        for (const db of [lite, pg]) {
          const imp = icstudio(["import", sample, "--json"], db);
          expect(imp.status, imp.stderr).toBe(0);
          expect(JSON.parse(imp.stdout).totals).toMatchObject({ files: 4, added: 163, rejected: 0 });
        }
        const stats = [lite, pg].map((db) => icstudio(["stats", "--json"], db).stdout);
        expect(JSON.parse(stats[0]).groups.length).toBe(4);
        expect(stats[1]).toBe(stats[0]);

        // SQLite → PostgreSQL → SQLite: the same rows (checksum) and the same figures.
        const there = await copyStore({ from: parseStoreTarget(lite), to: parseStoreTarget(pg2) });
        const back = path.join(dir, "back.db");
        const home = await copyStore({ from: parseStoreTarget(pg2), to: parseStoreTarget(back) });
        expect(there.counts).toMatchObject({ Episode: 163, ImportedFile: 4 });
        expect(home.counts).toEqual(there.counts);
        expect(home.checksum).toBe(there.checksum);
        expect(await statsJson(pg2)).toBe(stats[0]);
        expect(await statsJson(back)).toBe(stats[0]);
        // The search index is rebuilt on the target: the same episodes match on each.
        const found = async (db: string, search: string) => {
          process.env.IC_DB = db;
          const ids = (await listEpisodes({ search, pageSize: 500 })).rows.map((r) => r.id).sort();
          await closeStore();
          return ids;
        };
        for (const word of ["singer", "ls", "flag*"]) {
          const want = await found(lite, word);
          expect(want.length, word).toBeGreaterThan(0);
          expect(await found(pg2, word), word).toEqual(want);
          expect(await found(back, word), word).toEqual(want);
          expect((await found(pg, word)).length, word).toBe(want.length);
        }
      } finally {
        await closeStore();
        await dropPgSchema(pg);
        await dropPgSchema(pg2);
      }
    }, 600_000);
  });
}
