import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as launchRoute } from "@/app/api/runs/route";
import { goldScript } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { loadDataset } from "@/lib/datasets/registry";
import { listRunEpisodeOutcomes } from "@/lib/db/run-episodes";
import { getRunById, listRuns } from "@/lib/db/runs";
import { useTempStore } from "@/lib/testing/store";
import { ConflictError } from "@/lib/errors";
import { launchRun, resumeRun, stopRun } from "./run-manager";
import { buildRunView } from "./run-view";

/**
 * Runs launched in the server process (what the runs page does), on the real store, the SQL
 * environment and the scripted OpenAI-compatible server: refusals before anything starts, stop
 * (finished episodes kept, running ones interrupted) and resume (only what is left).
 */

useTempStore("run-manager");
let scripted: ScriptedServer;
const ctx = { maxSandboxes: 4 };
const tasks = loadDataset("demo-sql").slice(0, 5);

beforeAll(async () => {
  scripted = await startScriptedServer({ rules: [] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-run-models-"));
  const modelsFile = path.join(dir, "models.json");
  process.env.IC_MODELS_CONFIG = modelsFile;
  process.env.IC_MAX_SANDBOXES = "4";
  fs.writeFileSync(
    modelsFile,
    JSON.stringify({
      models: [
        {
          id: "scripted",
          provider: "openai-compatible",
          model: "scripted",
          baseURL: scripted.baseURL,
          contextWindow: 32768,
          price: { inputPerMtok: 1, outputPerMtok: 2 },
        },
      ],
    }),
  );
});
afterAll(async () => {
  await scripted?.close();
  delete process.env.IC_MODELS_CONFIG;
  delete process.env.IC_MAX_SANDBOXES;
});

async function until(check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const base = { env: "sql", dataset: "demo-sql", model: "scripted", policy: "try-again", turns: 3, concurrency: 2, selection: { kind: "slice", limit: 5 } };

async function post(body: unknown): Promise<{ status: number; json: { error?: { message: string; where?: string }; id?: string } }> {
  const res = await launchRoute(new Request("http://studio/api/runs", { method: "POST", body: JSON.stringify(body) }) as never);
  return { status: res.status, json: await res.json() };
}

describe("launching a run from the browser", () => {
  it("refuses an unknown dataset, a limit of 0 and more episodes at once than the sandbox cap, naming the field, before anything starts", async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ ...base, dataset: "no-such-set" }, "body dataset", /no-such-set/],
      [{ ...base, selection: { kind: "slice", limit: 0 } }, "body selection.limit", />=1/],
      [{ ...base, selection: { kind: "sample", limit: 0, seed: 3 } }, "body selection.limit", />=1/],
      [{ ...base, concurrency: 5 }, "body concurrency", /sandbox cap of 4/],
      [
        { ...base, env: "bash", dataset: "demo-bash", concurrency: 3 },
        "body concurrency",
        /sandbox cap of 4 \(IC_MAX_SANDBOXES\) allows: a bash episode holds 2 sandboxes/,
      ],
      [{ ...base, selection: { kind: "list", tasks: ["nope"] } }, "body selection.tasks", /nope/],
      [{ ...base, model: "not-configured" }, "body model", /not-configured/],
    ];
    for (const [body, where, message] of cases) {
      const r = await post(body);
      expect(r.status, where).toBe(400);
      expect(r.json.error?.where).toBe(where);
      expect(r.json.error?.message).toMatch(message);
    }
    expect(await listRuns()).toEqual([]);
    expect(scripted.requests).toHaveLength(0);
  });

  it("stops mid-way keeping every finished episode and marking running ones interrupted; resuming runs only what is left", async () => {
    scripted.setScript({ ...goldScript("try-again", tasks), delayMs: 300 });
    const { id } = await launchRun(
      { ...base, selection: { kind: "slice", offset: 0, limit: 5 }, policy: "try-again", env: "sql", handicap: false, refineTurns: 0, profile: "studio" },
      ctx,
    );
    await expect(resumeRun(id, ctx)).rejects.toBeInstanceOf(ConflictError);
    // Stop while one episode has finished and another is under way (on a loaded machine the run can sit
    // between two episodes, when there is nothing to interrupt).
    await until(async () => {
      const now = await listRunEpisodeOutcomes({ runId: id });
      return now.some((e) => e.status === "submitted") && now.some((e) => e.status === "running");
    });
    await stopRun(id);

    const run = await getRunById({ id });
    expect(run).toMatchObject({ status: "cancelled", owner: null });
    const stopped = await listRunEpisodeOutcomes({ runId: id });
    const finished = stopped.filter((e) => e.status === "submitted");
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.length).toBeLessThan(5);
    expect(stopped.filter((e) => e.status === "interrupted").length).toBeGreaterThanOrEqual(1);
    expect(stopped.some((e) => e.status === "running")).toBe(false);
    const view = await buildRunView(id);
    expect(view).toMatchObject({ live: false, done: finished.length, total: 5 });

    scripted.setScript(goldScript("try-again", tasks));
    const asked = () => new Set(scripted.requests.slice(before).map((r) => r.taskId));
    const before = scripted.requests.length;
    await resumeRun(id, ctx);
    await until(async () => (await getRunById({ id }))?.status === "done");
    const after = await listRunEpisodeOutcomes({ runId: id });
    for (const t of tasks)
      expect(
        after.filter((e) => e.taskId === t.id && e.status === "submitted"),
        t.id,
      ).toHaveLength(1);
    // The finished episodes are the same rows, and their tasks were not asked again.
    for (const f of finished) {
      expect(after.find((e) => e.id === f.id)?.status).toBe("submitted");
      expect(asked().has(f.taskId)).toBe(false);
    }
    expect(await buildRunView(id)).toMatchObject({ live: false, status: "done", done: 5, solved: 5, total: 5 });
  }, 120_000);
});
