import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { sharedIntercodeDir } from "@/lib/datasets/paths";

const root = path.resolve(__dirname, "../../..");
// Each case starts the CLI (tsx) and sandboxes: slow on a loaded machine.
vi.setConfig({ testTimeout: 480_000 });
const dataDir = mkdtempSync(path.join(os.tmpdir(), "ic-cli-"));

/** Runs `npm run icstudio -- ...args` as a user would. */
function icstudio(args: string[], input = "") {
  const r = spawnSync("npm", ["run", "-s", "icstudio", "--", ...args], {
    cwd: root,
    input,
    encoding: "utf8",
    env: { ...process.env, IC_DATA_DIR: dataDir, IC_SANDBOX: "local" },
    timeout: 240_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("icstudio datasets", () => {
  it("fetches InterCode's sets from a local copy and lists them", () => {
    const fetched = icstudio(["datasets", "fetch", "intercode", "--from", sharedIntercodeDir()]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toContain("python/mbpp/ic_mbpp.json: ");
    const list = icstudio(["datasets", "--json"]);
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as { name: string; env: string; tasks: number; source: string }[];
    expect(rows).toContainEqual(expect.objectContaining({ name: "mbpp", env: "python", tasks: 974, source: "intercode" }));
    expect(rows).toContainEqual(expect.objectContaining({ name: "nl2bash-fs2", env: "bash", tasks: 53 }));
    expect(rows).toContainEqual(expect.objectContaining({ name: "demo-python", source: "demo" }));
    const table = icstudio(["datasets"]);
    expect(table.stdout).toMatch(/^name\s+env\s+tasks\s+source/);
  });

  it("answers --help and rejects bad arguments with exit code 2", () => {
    for (const cmd of ["datasets", "play", "gold-check"]) {
      const h = icstudio([cmd, "--help"]);
      expect(h.code).toBe(0);
      expect(h.stdout).toContain(`usage: icstudio ${cmd}`);
    }
    const bad = icstudio(["gold-check", "--env", "cobol"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--env");
    expect(icstudio(["datasets", "fetch", "elsewhere"]).code).toBe(2);
    // Checking golds belongs to a fetch, and its backend is named.
    for (const [args, flag] of [
      [["datasets", "--check-gold"], "--check-gold"],
      [["datasets", "fetch", "intercode", "--backend", "docker"], "--backend"],
      [["datasets", "fetch", "intercode", "--check-gold", "--backend", "vm"], "--backend"],
    ] as const) {
      const r = icstudio([...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(flag);
    }
    expect(icstudio(["play", "--env", "python", "--task", "no-such-task"]).code).toBe(3);
  });
});

describe("icstudio play", () => {
  it("plays a python episode from stdin: multi-line actions, observations, submit with reward", () => {
    const script =
      [
        "def count_vowels(text):\\",
        '    return sum(c in "aeiouAEIOU" for c in text)',
        'count_vowels("Hello World")',
        "submit count_vowels",
        "print('never runs')",
      ].join("\n") + "\n";
    const r = icstudio(["play", "--env", "python", "--task", "count-vowels"], script);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Write a function count_vowels");
    expect(r.stdout).toContain("\n3\n");
    expect(r.stdout).toContain("reward 1\n");
    expect(r.stdout).toMatch(/breakdown \{"kind":"python"/);
    expect(r.stdout).not.toContain("never runs");
  });

  it("prints JSON lines with --json, and a wrong flag scores 0", () => {
    const r = icstudio(["play", "--env", "ctf", "--task", "demo-ctf/base64-note", "--json"], "ls\nsubmit studio{wrong}\n");
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({ task: "demo-ctf/base64-note" });
    expect(JSON.parse(lines[1]!)).toMatchObject({ action: "ls", ok: true, observation: "note.txt\n" });
    const submitted = JSON.parse(lines.slice(2).join("\n"));
    expect(submitted).toMatchObject({ reward: 0, breakdown: { kind: "ctf", match: false } });
  });
});

describe("icstudio gold-check", () => {
  it("prints exactly {tasks, perfect, meanReward, failures} with --json", () => {
    const r = icstudio(["gold-check", "--env", "ctf", "--dataset", "demo-ctf", "--limit", "3", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report).sort()).toEqual(["failures", "meanReward", "perfect", "tasks"]);
    expect(report).toEqual({ tasks: 3, perfect: 3, meanReward: 1, failures: [] });
    expect(r.stderr).toContain("gold-check ctf demo-ctf");
  });

  it("reports each failure with its reason", () => {
    // A task file whose gold solution does not even compile.
    const file = path.join(dataDir, "demo-python-broken.json");
    writeFileSync(
      file,
      JSON.stringify({
        env: "python",
        tasks: [{ id: "broken", query: "q", gold: "def double(x):\n    return x +", tests: ["assert double(2) == 4"], functionName: "double" }],
      }),
    );
    const r = icstudio(["gold-check", "--env", "python", "--dataset", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.tasks).toBe(1);
    expect(report.perfect).toBe(0);
    expect(report.failures[0]).toMatchObject({ taskId: "broken" });
    expect(report.failures[0].reason).toMatch(/gold code failed to run[\s\S]*SyntaxError/);
  });
});
