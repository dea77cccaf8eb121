import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freshBundle } from "../../scripts/cli-bundle.mjs";

const root = path.resolve(__dirname, "../..");
const fixtures = path.join(root, "lib/trajectories/fixtures/logs");

/** The installed `icstudio` command (bin/icstudio.mjs), which runs the compiled CLI in its own process. */
function bin(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(root, "bin/icstudio.mjs"), ...args], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8" });
}

describe("bin/icstudio.mjs", () => {
  it("runs a command with its arguments and passes its exit status on", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-launcher-"));
    try {
      const db = path.join(dir, "studio.db");
      const imp = bin(["import", path.join(fixtures, "ic_bash_multiturn_gpt-4_3_turns_fs_2.json"), "--json"], { IC_DB: db });
      expect(imp.stderr).toBe("");
      expect(imp.status).toBe(0);
      expect(JSON.parse(imp.stdout).totals).toMatchObject({ files: 1, failedFiles: 0, rejected: 0 });
      expect(JSON.parse(imp.stdout).totals.added).toBeGreaterThan(0);
      const bad = bin(["stats", "--group-by", "colour"], { IC_DB: db });
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toContain("colour");
      const unknown = bin(["no-such-command"]);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain('unknown command "no-such-command"');
      // A command's missing arguments are named once, not with the command's name twice.
      for (const [cmd, args] of [
        ["import", []],
        ["recheck", []],
        ["datasets", ["list"]],
      ] as const) {
        const r = bin([cmd, ...args], { IC_DB: db });
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(new RegExp(`^icstudio ${cmd}: arguments: `));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the compiled CLI, built again after one of its sources changed", () => {
    expect(bin(["--help"]).status).toBe(0);
    const before = freshBundle();
    expect(before).not.toBeNull();
    // A command's module, its time moved on (as a save does): the next start builds again.
    const source = path.join(root, "lib/cli/commands/stats.ts");
    const later = new Date(fs.statSync(source).mtimeMs + 2_000);
    fs.utimesSync(source, later, later);
    expect(freshBundle()).toBeNull();
    const help = bin(["stats", "--help"]);
    expect(help.stderr).toBe("");
    expect(help.stdout).toContain("usage: icstudio stats");
    const after = freshBundle();
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
  });

  it("reads a large import on the compiled reading thread", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-launcher-"));
    try {
      // Two files of 4.5 MB: together past WORKER_MIN_BYTES, so the import reads them on a worker thread.
      const record = JSON.parse(fs.readFileSync(path.join(fixtures, "ic_bash_multiturn_gpt-4_3_turns_fs_2.json"), "utf8"))["0"];
      record.turn_history.observations = record.turn_history.observations.map((o: string) => o.repeat(40));
      const logs = path.join(dir, "logs");
      fs.mkdirSync(logs);
      const perFile = Math.ceil(4.5e6 / JSON.stringify(record).length);
      const episodes = 2 * perFile;
      for (const fsN of [1, 2]) {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < perFile; i++) out[i] = { ...record, task_id: i };
        fs.writeFileSync(path.join(logs, `ic_bash_multiturn_gpt-4_3_turns_fs_${fsN}.json`), JSON.stringify(out));
      }
      // Each thread writes a profile of its own: two, and the second ran the compiled worker entry.
      const prof = path.join(dir, "prof");
      const imp = spawnSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", prof, path.join(root, "bin/icstudio.mjs"), "import", logs, "--json"], {
        cwd: root,
        env: { ...process.env, IC_DB: path.join(dir, "studio.db") },
        encoding: "utf8",
      });
      expect(imp.stderr).toBe("");
      expect(JSON.parse(imp.stdout).totals).toMatchObject({ files: 2, failedFiles: 0, added: episodes, rejected: 0 });
      const urls = fs
        .readdirSync(prof)
        .map((f) => (JSON.parse(fs.readFileSync(path.join(prof, f), "utf8")) as { nodes: { callFrame: { url: string } }[] }).nodes.map((n) => n.callFrame.url));
      expect(urls).toHaveLength(2);
      const worker = path.join(path.dirname(freshBundle("import-worker")!), "import-worker.mjs");
      expect(urls.filter((u) => u.some((url) => url.endsWith(worker)))).toHaveLength(1);
      expect(urls.flat().some((url) => url.includes("tsx"))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
