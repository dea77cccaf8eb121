import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import type { PolicyName } from "@/lib/agent/policies/types";
import { replyFor, ruleFor, scriptedReplies, wrongAction } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { closeStore } from "@/lib/db/client";
import { getRunByName } from "@/lib/db/runs";

/**
 * One set of the paper's measures: `icstudio eval --json` and `icstudio stats --json` over the same
 * run give the same success rate, mean turns and error rate, for each policy under both profiles.
 * The installed command (compiled), the scripted model server over HTTP, a real store.
 */

const REPO = path.resolve(__dirname, "../..");
let server: ScriptedServer;
let dbFile: string;

function icstudio(args: string[]) {
  const child = spawn(process.execPath, ["bin/icstudio.mjs", ...args], {
    cwd: REPO,
    env: { ...process.env, IC_DB: dbFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-measures-")), "studio.db");
  process.env.IC_DB = dbFile;
  server = await startScriptedServer({ rules: [] });
});
afterAll(async () => {
  await server?.close();
  await closeStore();
});

const POLICIES: PolicyName[] = ["single-turn", "try-again", "react", "plan-solve"];

describe.each(["intercode", "studio"] as const)("eval and stats agree under profile %s", (profile) => {
  it.each(POLICIES)(
    "%s",
    async (policy) => {
      const tasks = loadDataset("demo-sql").slice(0, 3);
      // Task 0 solved; task 1 wrong then submitted; task 2 never submits, so the turn limit ends it
      // (ReAct's forced final submit under intercode: a stored turn its turn count leaves out).
      const never = [
        ...(policy === "plan-solve" ? ["1. Look.\n2. Look again.\n3. Once more."] : []),
        ...Array.from({ length: 6 }, () => replyFor(policy, tasks[2]!, wrongAction(tasks[2]!))),
      ];
      server.setScript({
        rules: [
          ruleFor(tasks[0]!, scriptedReplies(policy, tasks[0]!, "solve")),
          ruleFor(tasks[1]!, scriptedReplies(policy, tasks[1]!, "wrong")),
          ruleFor(tasks[2]!, never),
        ],
      });
      const name = `m-${policy}-${profile}`;
      const ev = await icstudio([
        "eval",
        "--env",
        "sql",
        "--dataset",
        "demo-sql",
        "--limit",
        "3",
        "--turns",
        "3",
        "--policy",
        policy,
        "--profile",
        profile,
        "--base-url",
        server.baseURL,
        "--api-key",
        "k",
        "--run",
        name,
        "--json",
      ]);
      expect(ev.code, ev.stderr).toBe(0);
      const summary = JSON.parse(ev.stdout);
      const run = await getRunByName({ name });
      const st = await icstudio(["stats", "--run", run!.id, "--group-by", "policy", "--json"]);
      expect(st.code, st.stderr).toBe(0);
      const groups = JSON.parse(st.stdout).groups;
      expect(groups).toHaveLength(1);
      const [g] = groups;
      expect(summary.episodes).toBe(3);
      expect([summary.episodes, summary.solved, summary.successRate, summary.meanTurns, summary.errorRate]).toEqual([
        g.episodes,
        g.solved,
        g.successRate,
        g.meanTurns,
        g.errorRate,
      ]);
    },
    120_000,
  );
});
