import { afterAll, describe, expect, it } from "vitest";
import { loadDataset } from "@/lib/datasets/registry";
import { documentedException, goldCheck, shutdownSandboxes } from "./gold-check";

afterAll(shutdownSandboxes);

describe("documentedException", () => {
  it("finds the reason of a documented NL2Bash gold, and nothing for other tasks", async () => {
    const fs4 = loadDataset("nl2bash-fs4");
    expect(await documentedException(fs4[25]!)).toMatch(/load average.*\(allowed: nondeterministic\)/);
    expect(await documentedException(fs4[0]!)).toBeUndefined();
    // The same index in another file system is another task.
    expect(await documentedException(loadDataset("nl2bash-fs3")[25]!)).toBeUndefined();
    expect(await documentedException(loadDataset("demo-bash")[0]!)).toBeUndefined();
  });
});

describe("goldCheck", () => {
  it("scores a gold that is stable at 1.0, and a documented failure with its reason", { timeout: 120_000 }, async () => {
    const fs4 = loadDataset("nl2bash-fs4");
    // fs4:4 runs `env`: under the intercode profile each sandbox has its own HOSTNAME, as each of
    // InterCode's containers had, so gold's output never matches the agent's run of the same command.
    const report = await goldCheck([fs4[0]!, fs4[4]!], { backend: "local", profile: "intercode" });
    expect(report.tasks).toBe(2);
    expect(report.perfect).toBe(1);
    expect(report.failures.map((f) => f.taskId)).toEqual([fs4[4]!.id]);
    expect(report.failures[0]!.reason).toMatch(/output similarity .*HOSTNAME=.*; documented exception: intercode profile: env prints HOSTNAME/s);
  });
});
