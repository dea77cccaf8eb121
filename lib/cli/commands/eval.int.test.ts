import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { goldScript, ruleFor, scriptedReplies } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { closeStore } from "@/lib/db/client";
import { listRunEpisodeOutcomes } from "@/lib/db/run-episodes";
import { getRunByName } from "@/lib/db/runs";

/** `icstudio eval` as a user runs it (the installed command, compiled): a real process, the scripted server over HTTP, a real store. */

const REPO = path.resolve(__dirname, "../../..");
const ENV = "sql";
let server: ScriptedServer;
let dbFile: string;

function icstudio(args: string[], opts: { onStderr?: (s: string) => void } = {}) {
  const child = spawn(process.execPath, ["bin/icstudio.mjs", ...args], {
    cwd: REPO,
    env: { ...process.env, IC_DB: dbFile, IC_MODEL_ATTEMPTS: "2" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => {
    stderr += d;
    opts.onStderr?.(String(d));
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

beforeAll(async () => {
  dbFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-eval-cli-")), "studio.db");
  process.env.IC_DB = dbFile;
  server = await startScriptedServer({ rules: [] });
});
afterAll(async () => {
  await server?.close();
  await closeStore();
});

describe("icstudio eval", () => {
  it("runs a dataset, prints exactly the JSON summary, and resumes without redoing finished tasks", async () => {
    const tasks = loadDataset(`demo-${ENV}`).slice(0, 4);
    const script = goldScript("try-again", tasks);
    // The last task: the provider never answers; the run goes on and stores it as an error.
    script.rules[3] = ruleFor(tasks[3]!, scriptedReplies("try-again", tasks[3]!, "solve"), [{ kind: "500", times: 1000 }]);
    server.setScript(script);
    const args = [
      "eval",
      "--env",
      ENV,
      "--dataset",
      `demo-${ENV}`,
      "--limit",
      "4",
      "--base-url",
      server.baseURL,
      "--api-key",
      "k",
      "--run",
      "cli-1",
      "--concurrency",
      "2",
      "--json",
    ];
    const first = await icstudio(args).done;
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(Object.keys(report).sort()).toEqual(["episodes", "errorRate", "meanTurns", "run", "solved", "successRate"]);
    expect(report).toMatchObject({ run: "cli-1", episodes: 4, solved: 3, successRate: 0.75 });
    expect(report.meanTurns).toBeGreaterThan(0);
    expect(report.errorRate).toBeGreaterThanOrEqual(0);
    const run = await getRunByName({ name: "cli-1" });
    expect(run).toMatchObject({ status: "done", total: 4, done: 4, solved: 3, errors: 1 });
    const eps = await listRunEpisodeOutcomes({ runId: run!.id });
    expect(eps.map((e) => e.status).sort()).toEqual(["error", "submitted", "submitted", "submitted"]);

    const requestsBefore = server.requests.length;
    const again = await icstudio(args).done;
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(report);
    expect(server.requests.length).toBe(requestsBefore); // nothing was asked again
    expect((await listRunEpisodeOutcomes({ runId: run!.id })).length).toBe(4);
  }, 240_000);

  it("refuses to resume a run under another configuration", async () => {
    const r = await icstudio(["eval", "--env", ENV, "--limit", "1", "--base-url", server.baseURL, "--run", "cli-1", "--policy", "react", "--json"]).done;
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/another configuration \(policy "try-again" ≠ "react"\)/);
  }, 60_000);

  it("names a bad flag", async () => {
    const r = await icstudio(["eval", "--env", "cobol"]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--env/);
  });

  it("stops cleanly on Ctrl+C: finished episodes kept, running ones interrupted, then resumed", async () => {
    const tasks = loadDataset(`demo-${ENV}`).slice(0, 5);
    server.setScript({ ...goldScript("try-again", tasks), delayMs: 400 });
    const args = ["eval", "--env", ENV, "--limit", "5", "--base-url", server.baseURL, "--run", "cli-int", "--concurrency", "2", "--json"];
    let progressed = false;
    const p = icstudio(args, { onStderr: (s) => (progressed ||= /\] [1-9]\/5/.test(s)) });
    while (!progressed) await new Promise((r) => setTimeout(r, 50));
    // The Run row is live while the CLI runs (the runs page reads it): every finished task so far
    // was solved, and the row says so (it said solved 0 until the end).
    const live = await getRunByName({ name: "cli-int" });
    expect(live!.done).toBeGreaterThanOrEqual(1);
    expect(live!.solved).toBe(live!.done);
    p.child.kill("SIGINT");
    const r = await p.done;
    expect(r.code, r.stderr).toBe(130);
    const run = await getRunByName({ name: "cli-int" });
    expect(run!.status).toBe("cancelled");
    const eps = await listRunEpisodeOutcomes({ runId: run!.id });
    const finished = eps.filter((e) => e.status === "submitted");
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.length).toBeLessThan(5);
    expect(eps.filter((e) => e.status === "interrupted").length).toBeGreaterThanOrEqual(1);
    expect(eps.some((e) => e.status === "running")).toBe(false);

    server.setScript(goldScript("try-again", tasks));
    const resumed = await icstudio(args).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ episodes: 5, solved: 5 });
    const after = await listRunEpisodeOutcomes({ runId: run!.id });
    // Finished tasks were not run again.
    for (const f of finished) expect(after.filter((e) => e.taskId === f.taskId && e.status === "submitted")).toHaveLength(1);
  }, 240_000);
});
