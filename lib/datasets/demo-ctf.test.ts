import { spawnSync } from "node:child_process";
import { existsSync, promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapRootArgs, mapLimit } from "./fs-check";
import { ctfTaskSchema, type CtfTask } from "./types";

const repo = path.resolve(__dirname, "../..");

async function loadTasks(): Promise<CtfTask[]> {
  const raw = JSON.parse(await fsp.readFile(path.join(repo, "datasets/demo-ctf.json"), "utf8")) as { tasks: Record<string, unknown>[] };
  return raw.tasks.map((t, index) => ctfTaskSchema.parse({ ...t, env: "ctf", dataset: "demo-ctf", index }));
}

/** Runs a task's solution in a bubblewrap sandbox over a fresh copy of its files at /ctf. */
async function runSolution(task: CtfTask): Promise<{ stdout: string; stderr: string; status: number | null }> {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), `ic-ctf-${task.id}-`));
  try {
    await fsp.cp(path.join(repo, "datasets", task.files!), path.join(root, "ctf"), { recursive: true, preserveTimestamps: true });
    const r = spawnSync("bwrap", [...bwrapRootArgs(root), "bash", "-c", `cd /ctf && ${task.solution}`], { encoding: "utf8", timeout: 20_000, stdio: ["ignore", "pipe", "pipe"] });
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}

describe("demo CTF tasks", () => {
  it("has at least 20 valid tasks, each with its files, a studio{...} flag and a solution", async () => {
    const tasks = await loadTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(20);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    expect(new Set(tasks.map((t) => t.gold)).size).toBe(tasks.length);
    for (const t of tasks) {
      expect(t.gold, t.id).toMatch(/^studio\{[a-z0-9_]+\}$/);
      expect(t.solution, t.id).toBeTruthy();
      expect(t.tags.length, t.id).toBeGreaterThan(0);
      expect(existsSync(path.join(repo, "datasets", t.files!)), t.id).toBe(true);
    }
  });

  it("each solution prints exactly its flag when run in a sandbox over the task's files", { timeout: 300_000 }, async () => {
    const tasks = await loadTasks();
    const results = await mapLimit(tasks, 2, async (t) => ({ t, r: await runSolution(t) }));
    const wrong = results.filter(({ t, r }) => r.status !== 0 || r.stdout.trim() !== t.gold).map(({ t, r }) => `${t.id}: exit ${r.status}, printed ${JSON.stringify(r.stdout.slice(0, 120))}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`);
    expect(wrong).toEqual([]);
  });

  it("a wrong solution does not pass: the check compares the printed flag", async () => {
    const [first] = await loadTasks();
    const r = await runSolution({ ...first!, solution: "cat * | head -c 20" });
    expect(r.stdout.trim()).not.toBe(first!.gold);
  });
});
