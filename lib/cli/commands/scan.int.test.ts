import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { closeStore } from "@/lib/db/client";
import { createAnnotation } from "@/lib/db/annotations";
import { createEpisode, finishEpisode } from "@/lib/db/episodes";
import { initStore } from "@/lib/db/startup";
import { useFreshDb } from "@/lib/testing/store";

const root = path.resolve(__dirname, "../../..");
const db = useFreshDb("scan-cli");
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ rules: [{ match: "(yes)", replies: ["Yes, at turn 1."] }], fallback: "No." });
});
afterAll(async () => {
  await server.close();
  await closeStore();
});

/** The CLI in a child process (async: the scripted server answers from this one). */
function icstudio(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/icstudio.mjs", ...args], { cwd: root, env: { ...process.env, IC_DB: db } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("icstudio scan", () => {
  it("scans the filtered episodes through an OpenAI-compatible endpoint and prints the answers and the agreement as JSON", async () => {
    await initStore();
    for (const [i, env, answer] of [
      [0, "bash", "yes"],
      [1, "bash", "no"],
      [2, "bash", "yes"],
      [3, "sql", "yes"],
    ] as const) {
      const ep = await createEpisode({
        environment: env,
        dataset: "d",
        taskId: String(i),
        query: `task ${i} (${answer})`,
        playerKind: "model",
        model: "gpt-4",
        policy: "try-again",
        turnLimit: 5,
      });
      await finishEpisode({ episodeId: ep.id, outcome: { status: "abandoned" } });
      if (i < 2) await createAnnotation({ episodeId: ep.id, kind: "tag", tag: "gave-up-early", author: "ann" });
    }
    await closeStore();

    const r = await icstudio([
      "scan",
      "--question",
      "Did the agent give up early?",
      "--answer-tag",
      "gave-up-early",
      "--model",
      "m",
      "--base-url",
      server.baseURL,
      "--env",
      "bash",
      "--episode-model",
      "gpt-4",
      "--json",
    ]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ tag: "gave-up-early", question: "Did the agent give up early?", total: 3, done: 3, yes: 2, no: 1, errors: 0 });
    expect(Object.keys(out)).toEqual(expect.arrayContaining(["scanId", "model", "prompt", "at", "answers", "agreement"]));
    expect(out.answers).toHaveLength(3);
    expect(out.answers[0]).toEqual({ episodeId: expect.any(String), answer: expect.stringMatching(/^(yes|no)$/), text: expect.any(String) });
    // People tagged two of the three: one yes both, one person yes / scanner no.
    expect(out.agreement).toMatchObject({ episodes: 2, truePositive: 1, falseNegative: 1, precision: 1, recall: 0.5 });
    expect(r.stderr).toMatch(/yes 2 · no 1 · errors 0/);

    const bad = spawnSync(process.execPath, ["bin/icstudio.mjs", "scan", "--question", "Why?", "--answer-tag", "Gave Up", "--model", "m"], {
      cwd: root,
      env: { ...process.env, IC_DB: db },
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--answer-tag: a scanner's tag is 1-58 characters/);
    const noModel = spawnSync(process.execPath, ["bin/icstudio.mjs", "scan", "--question", "Why not?", "--answer-tag", "x", "--model", "no-such-model"], {
      cwd: root,
      env: { ...process.env, IC_DB: db },
      encoding: "utf8",
    });
    expect(noModel.stderr).toMatch(/model "no-such-model"/);
  }, 120_000);
});
