import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { config } from "@/lib/config";

const root = path.resolve(__dirname, "../../..");
const sample = path.join(config().sharedIntercodeDir, "results-sample");

function icstudio(args: string[], db: string) {
  return spawnSync(process.execPath, ["bin/icstudio.mjs", ...args], {
    cwd: root,
    env: { ...process.env, IC_DB: db },
    encoding: "utf8",
  });
}

describe("icstudio import / stats / export", () => {
  it("imports the sample logs, prints the paper's figures as JSON, exports and re-imports", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-cli-"));
    const db = path.join(dir, "studio.db");
    const imp = icstudio(["import", sample, "--json"], db);
    expect(imp.status).toBe(0);
    expect(JSON.parse(imp.stdout).totals).toMatchObject({ files: 4, added: 163, rejected: 0 });

    const stats = icstudio(["stats", "--group-by", "env,model,policy", "--json"], db);
    expect(stats.status).toBe(0);
    const { groups } = JSON.parse(stats.stdout);
    const bash = groups.find((g: { key: { env: string } }) => g.key.env === "bash");
    expect(bash).toMatchObject({ key: { env: "bash", model: "gpt-4", policy: "try-again" }, episodes: 27, solved: 16 });
    expect(Object.keys(bash).sort()).toEqual(["episodes", "errorRate", "key", "meanReward", "meanTurns", "solved", "successAtK", "successRate"]);

    const out = path.join(dir, "py.jsonl");
    const exp = icstudio(["export", "--env", "python", "--success", "true", "--format", "jsonl", "--out", out], db);
    expect(exp.status).toBe(0);
    expect(fs.readFileSync(out, "utf8").trim().split("\n")).toHaveLength(69);

    const db2 = path.join(dir, "second.db");
    const again = icstudio(["import", out], db2);
    expect(again.stdout).toMatch(/episodes added 69 · skipped 0/);
    expect(JSON.parse(icstudio(["stats", "--json"], db2).stdout).groups[0]).toMatchObject({ episodes: 69, solved: 69, successRate: 1 });
  }, 300_000);

  it("names bad flags and bad files, and exits non-zero", () => {
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-cli-")), "studio.db");
    const bad = icstudio(["stats", "--group-by", "colour"], db);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--group-by: unknown dimension "colour"/);
    const missing = icstudio(["import", "/no/such/file.json"], db);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/\/no\/such\/file.json: no such file or folder/);
    const fmt = icstudio(["export", "--format", "csv"], db);
    expect(fmt.stderr).toMatch(/--format: must be jsonl, intercode, inspect or atif/);
  }, 300_000);
});
