import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import { listMachineTagsBySource } from "@/lib/db/annotations";
import { closeStore } from "@/lib/db/client";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { importPaths } from "@/lib/trajectories/import-paths";
import { DETECTOR_NAMES } from "./detectors";
import { failureGroupId, listFailureGroups } from "./groups";
import { LAST_ERROR_TAG } from "./machine-tags";
import { detectEpisodesByFilters } from "./record";
import type { FailureGroupsResult } from "./view-types";

const sample = path.join(config().sharedIntercodeDir, "results-sample");
const files = fs
  .readdirSync(sample)
  .flatMap((env) => fs.readdirSync(path.join(sample, env)).map((f) => path.join(sample, env, f)))
  .sort();

/** A grouping without its example lists' order-free parts: what must not change between runs. */
const shape = (r: FailureGroupsResult) =>
  r.groups.map((g) => ({
    id: g.id,
    key: g.key,
    episodes: g.episodes,
    byModel: g.byModel,
    byPolicy: g.byPolicy,
    examples: g.examples.map((e) => [e.taskId, e.turn]),
  }));

describe.each(storeEngines())("failure groups over InterCode's sample logs on %s", (engine) => {
  useTempStore("failure-groups", engine);
  beforeAll(async () => {
    await importPaths(files, { worker: false });
  }, 120_000);

  it("the import stored the detectors' tags with their provenance, and the last error of failing episodes", async () => {
    const tags = await listMachineTagsBySource({ source: "detector" });
    expect(tags.length).toBeGreaterThan(50);
    expect(new Set(tags.map((t) => t.tag))).toContain(LAST_ERROR_TAG);
    for (const t of tags) {
      expect([...DETECTOR_NAMES, LAST_ERROR_TAG]).toContain(t.tag);
      expect(t.provenance).toEqual({ detector: t.tag, version: 1 });
    }
  });

  it("groups are the same when run again, after the detectors run again, and their ids come from their keys", async () => {
    for (const groupBy of ["detector", "cluster"] as const) {
      const first = await listFailureGroups({ groupBy });
      expect(first.groups.length).toBeGreaterThan(1);
      for (const g of first.groups) expect(g.id).toBe(failureGroupId(g.key));
      expect(shape(await listFailureGroups({ groupBy }))).toEqual(shape(first));
      await detectEpisodesByFilters({});
      expect(shape(await listFailureGroups({ groupBy }))).toEqual(shape(first));
    }
    const byDetector = await listFailureGroups({ groupBy: "detector" });
    // Every failing episode is in at least one group; a detector group never counts more than the failing episodes.
    expect(byDetector.groups.every((g) => g.episodes <= byDetector.failing)).toBe(true);
    const byCluster = await listFailureGroups({ groupBy: "cluster" });
    expect(byCluster.groups.reduce((n, g) => n + g.episodes, 0)).toBe(byCluster.failing);
    // Filters narrow the failing set as the list's do.
    const sql = await listFailureGroups({ groupBy: "cluster", filters: { environment: "sql" } });
    expect(sql.failing).toBeLessThan(byCluster.failing);
    expect(sql.groups.every((g) => "cluster" in g.key && g.key.cluster.startsWith("sql: "))).toBe(true);
  });
});

describe("failure groups are stable across stores", () => {
  it("importing the logs in the other order into another store gives the same groups and ids", async () => {
    const run = async (order: string[]) => {
      process.env.IC_DB = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-groups-")), "studio.db");
      await importPaths(order, { worker: false });
      const out = { detector: shape(await listFailureGroups({ groupBy: "detector" })), cluster: shape(await listFailureGroups({ groupBy: "cluster" })) };
      await closeStore();
      return out;
    };
    const a = await run(files);
    const b = await run([...files].reverse());
    expect(b).toEqual(a);
  }, 120_000);
});

describe("icstudio failures and tasks-qa", () => {
  const root = path.resolve(__dirname, "../..");
  const icstudio = (args: string[], db: string) =>
    spawnSync(process.execPath, ["bin/icstudio.mjs", ...args], { cwd: root, env: { ...process.env, IC_DB: db }, encoding: "utf8" });

  it("print {groups: [{key: {detector} or {cluster}, episodes, ...}]} with the stats' filters, and name a bad flag", () => {
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-failures-cli-")), "studio.db");
    expect(icstudio(["import", sample, "--json"], db).status).toBe(0);
    const byDetector = icstudio(["failures", "--group-by", "detector", "--json"], db);
    expect(byDetector.status).toBe(0);
    const d = JSON.parse(byDetector.stdout);
    expect(d.groupBy).toBe("detector");
    expect(Object.keys(d.groups[0]).sort()).toEqual([
      "byEnvironment",
      "byHardness",
      "byModel",
      "byModelPolicy",
      "byPolicy",
      "definition",
      "episodes",
      "examples",
      "id",
      "key",
    ]);
    for (const g of d.groups) expect(Object.keys(g.key)).toEqual(["detector"]);
    const byCluster = JSON.parse(icstudio(["failures", "--group-by", "cluster", "--env", "bash", "--json"], db).stdout);
    for (const g of byCluster.groups) {
      expect(Object.keys(g.key)).toEqual(["cluster"]);
      expect(g.byEnvironment).toEqual({ bash: g.episodes });
    }
    expect(icstudio(["failures", "--json"], db).stdout).toBe(byDetector.stdout);
    const table = icstudio(["failures"], db);
    expect(table.stdout).toMatch(/failing episode\(s\)\ngroup +id +episodes/);

    const bad = icstudio(["failures", "--group-by", "colour"], db);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--group-by: must be detector or cluster, got "colour"/);
    expect(icstudio(["failures", "--env", "cobol"], db).stderr).toMatch(/--env: unknown environment "cobol"/);

    const qa = icstudio(["tasks-qa", "--json"], db);
    expect(qa.status).toBe(0);
    const parsed = JSON.parse(qa.stdout);
    expect(Object.keys(parsed).sort()).toEqual(["counts", "suspects"]);
    expect(Object.keys(parsed.counts).sort()).toEqual(["gold-check-failed", "models-agree-against-gold", "reward-hacking"]);
    const report = path.join(path.dirname(db), "gold.json");
    fs.writeFileSync(
      report,
      JSON.stringify({ tasks: 2, perfect: 1, meanReward: 0.5, failures: [{ taskId: "7", reward: 0, reason: "query failed: no such table: x" }] }),
    );
    const withGold = JSON.parse(icstudio(["tasks-qa", "--gold-check", report, "--env", "sql", "--dataset", "spider", "--json"], db).stdout);
    expect(withGold.suspects.filter((s: { kind: string }) => s.kind === "gold-check-failed")).toEqual([
      { environment: "sql", dataset: "spider", taskId: "7", kind: "gold-check-failed", evidence: expect.stringContaining("no such table: x"), episodes: [] },
    ]);
    expect(icstudio(["tasks-qa", "--gold-check", report, "--json"], db).stderr).toMatch(/--env: name the one environment/);
    const csv = icstudio(["tasks-qa", "--csv"], db);
    expect(csv.stdout.split("\r\n")[0]).toBe("environment,dataset,taskId,kind,evidence,episodes");
  }, 300_000);
});
