import { existsSync, promises as fsp } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getSandboxBackend, shutdownSandboxBackends } from "@/lib/sandbox";
import { mapLimit } from "./fs-check";
import { ctfTaskSchema, type CtfTask } from "./types";

const repo = path.resolve(__dirname, "../..");

async function loadTasks(): Promise<CtfTask[]> {
  const raw = JSON.parse(await fsp.readFile(path.join(repo, "datasets/demo-ctf.json"), "utf8")) as { tasks: Record<string, unknown>[] };
  return raw.tasks.map((t, index) => ctfTaskSchema.parse({ ...t, env: "ctf", dataset: "demo-ctf", index }));
}

/** Runs a task's solution in a sandbox (the local backend) over a fresh copy of its files at /ctf. */
async function runSolution(task: CtfTask): Promise<{ stdout: string; stderr: string; status: number | null }> {
  const backend = await getSandboxBackend("local");
  const sandbox = await backend.create({ image: "ctf", files: { hostDir: path.join(repo, "datasets", task.files!), mountAt: "/ctf" }, workdir: "/ctf" });
  try {
    const r = await sandbox.exec(["bash", "-c", `cd /ctf && ${task.solution}`], { timeoutMs: 20_000 });
    return { stdout: r.stdout, stderr: r.stderr, status: r.exitCode };
  } finally {
    await sandbox.close();
  }
}

afterAll(() => shutdownSandboxBackends());

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
    const wrong = results
      .filter(({ t, r }) => r.status !== 0 || r.stdout.trim() !== t.gold)
      .map(({ t, r }) => `${t.id}: exit ${r.status}, printed ${JSON.stringify(r.stdout.slice(0, 120))}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`);
    expect(wrong).toEqual([]);
  });

  it("a wrong solution does not pass: the check compares the printed flag", async () => {
    const [first] = await loadTasks();
    const r = await runSolution({ ...first!, solution: "cat * | head -c 20" });
    expect(r.stdout.trim()).not.toBe(first!.gold);
  });
});
