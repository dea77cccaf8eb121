/**
 * Fault: the model provider fails during a batch run (`icstudio eval` as a user runs it, against
 * lib/agent's scripted OpenAI-compatible server with fault injection). Passing faults are
 * retried and the episode solved; a provider that never answers ends its episode as an error
 * and the run goes on. Every injected fault is counted and accounted for.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ruleFor, scriptedReplies } from "@/lib/agent/scripts";
import { type FaultKind, startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { loadDataset } from "@/lib/datasets/registry";
import { recordFigure } from "./figures";

const REPO = path.resolve(__dirname, "..");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-hardening-provider-"));
const dbFile = path.join(dir, "studio.db");
process.env.IC_DB = dbFile;
let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer({ rules: [] });
});
afterAll(async () => {
  await server?.close();
  const { closeStore } = await import("@/lib/db/client");
  await closeStore().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

function icstudio(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "lib/cli/main.ts", ...args], {
    cwd: REPO,
    env: { ...process.env, IC_DB: dbFile, IC_MODEL_ATTEMPTS: "3" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("model provider faults in a batch run", () => {
  it("retries passing faults, records a dead provider as an error episode, and counts them all", async () => {
    const tasks = loadDataset("demo-sql").slice(0, 7);
    // One kind of passing fault per task (first attempt fails), and one provider that never answers.
    const passing: FaultKind[] = ["429", "500", "malformed", "empty", "hang", "500"];
    const rules = tasks.map((t, i) =>
      i < passing.length
        ? ruleFor(t, scriptedReplies("try-again", t, "solve"), [{ kind: passing[i]!, times: 1, turn: 0, retryAfterSec: 0, hangMs: 1500 }])
        : ruleFor(t, scriptedReplies("try-again", t, "solve"), [{ kind: "500", times: 1000 }]),
    );
    server.setScript({ rules });
    const r = await icstudio([
      "eval",
      "--env",
      "sql",
      "--dataset",
      "demo-sql",
      "--limit",
      String(tasks.length),
      "--base-url",
      server.baseURL,
      "--api-key",
      "k",
      "--run",
      "faults",
      "--concurrency",
      "3",
      "--json",
    ]);
    const injected = server.requests.filter((q) => q.outcome !== "ok" && q.outcome !== "no-rule");
    const { getRunByName } = await import("@/lib/db/runs");
    const { listRunEpisodeOutcomes } = await import("@/lib/db/run-episodes");
    const run = await getRunByName({ name: "faults" });
    const eps = run ? await listRunEpisodeOutcomes({ runId: run.id }) : [];
    const statuses = eps.map((e) => e.status).sort();
    const ok = r.code === 0 && run?.status === "done" && eps.length === tasks.length && statuses.filter((s) => s === "error").length === 1;
    recordFigure({
      section: "faults",
      row: "model provider faults (eval batch)",
      tried: injected.length,
      passed: ok ? injected.length : 0,
      unit: "handled",
      extra: {
        kinds: [...new Set(injected.map((q) => q.outcome))].join("/"),
        episodes: eps.length,
        "error episodes": statuses.filter((s) => s === "error").length,
        exit: String(r.code),
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(injected.map((q) => q.outcome))).toEqual(new Set(["429", "500", "malformed", "empty", "hang"]));
    expect(run).toMatchObject({ status: "done", total: tasks.length, done: tasks.length, errors: 1 });
    expect(statuses).toEqual([...Array(tasks.length - 1).fill("submitted"), "error"].sort());
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ run: "faults", episodes: tasks.length, solved: tasks.length - 1 });
  }, 300_000);
});
