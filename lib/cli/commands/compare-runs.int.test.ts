import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { createEpisode, finishEpisode } from "@/lib/db/episodes";
import { initStore } from "@/lib/db/startup";
import { runPython } from "@/lib/reward/testing/python-oracle";
import { useFreshDb } from "@/lib/testing/store";

const root = path.resolve(__dirname, "../../..");
const db = useFreshDb("compare-runs-cli");
afterAll(() => closeStore());

function icstudio(args: string[]) {
  return spawnSync(process.execPath, ["bin/icstudio.mjs", ...args], { cwd: root, env: { ...process.env, IC_DB: db }, encoding: "utf8" });
}

describe("icstudio compare-runs", () => {
  it("prints {both, onlyA, onlyB, neither, mcnemarP, diffCI} for two list filters, and names a bad key", async () => {
    await initStore();
    // 20 bash tasks: gpt-4 solves 0-13, gpt-3.5 solves 0-7 and 14-15.
    for (let i = 0; i < 20; i++) {
      for (const [model, solved] of [
        ["gpt-4", i < 14],
        ["gpt-3.5", i < 8 || i === 14 || i === 15],
      ] as const) {
        const ep = await createEpisode({
          environment: "bash",
          dataset: "nl2bash-fs1",
          taskId: String(i),
          query: `task ${i}`,
          playerKind: "model",
          model,
          policy: "try-again",
          turnLimit: 10,
          db: "fs1",
        });
        await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: solved ? 1 : 0.3 } });
      }
    }
    await closeStore();

    const run = icstudio(["compare-runs", "--a", "model=gpt-4,policy=try-again,env=bash", "--b", "model=gpt-3.5,env=bash,sql", "--json"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out).slice(0, 6)).toEqual(["both", "onlyA", "onlyB", "neither", "mcnemarP", "diffCI"]);
    expect(out).toMatchObject({ both: 8, onlyA: 6, onlyB: 2, neither: 4, tasks: 20, unpaired: 0, episodes: { a: 20, b: 20 } });
    const [p] = runPython<number[]>("from scipy.stats import binomtest\nresult = [binomtest(6, 8, 0.5).pvalue]", null);
    expect(out.mcnemarP).toBeCloseTo(p!, 12);
    expect(out.diffCI).toMatchObject({ diff: 0.2, level: 0.95, resamples: 10000, seed: 1 });
    expect(out.groups.map((g: { group: string; tasks: number }) => [g.group, g.tasks])).toEqual([["fs1", 20]]);

    // The seed is honoured: the same seed gives the same interval.
    const again = JSON.parse(icstudio(["compare-runs", "--a", "model=gpt-4", "--b", "model=gpt-3.5", "--json", "--seed", "1"]).stdout);
    expect(again.diffCI).toEqual(out.diffCI);

    const table = icstudio(["compare-runs", "--a", "model=gpt-4", "--b", "model=gpt-3.5"]);
    expect(table.stdout).toMatch(/20 tasks paired, 0 left out/);
    expect(table.stdout).toMatch(/^all\s+20\s+8\s+6\s+2\s+4\s+0\.289/m);

    const bad = icstudio(["compare-runs", "--a", "modle=gpt-4", "--b", "model=gpt-3.5", "--json"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--a: unknown filter key "modle"; one of env, dataset, model/);
    const badEnv = icstudio(["compare-runs", "--a", "model=gpt-4", "--b", "env=cobol", "--json"]);
    expect(badEnv.status).toBe(2);
    expect(badEnv.stderr).toMatch(/--b env: unknown environment "cobol"/);
    const missing = icstudio(["compare-runs", "--a", "model=gpt-4", "--json"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--b: required/);
  }, 120_000);
});
