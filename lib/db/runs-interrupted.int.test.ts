import os from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { closeStore, withPrisma } from "./client";
import { createRun, getRunById, markInterruptedRuns, queueOwnerOf } from "./runs";
import { initStore } from "./startup";
import { useFreshDb } from "@/lib/testing/store";

useFreshDb("runs-interrupted");
afterAll(() => closeStore());

describe("runs a dead process left running (finding 10)", () => {
  it("are marked interrupted at the next start; live, queued and other machines' runs are left", async () => {
    const dead = await createRun({ name: "killed", config: {} });
    const mine = await createRun({ name: "mine", config: {} });
    const queued = await createRun({ name: "queued", config: {} });
    const remote = await createRun({ name: "remote", config: {} });
    const owners: Array<[string, string]> = [
      [dead.id, `${os.hostname()}:2147483646`],
      [mine.id, `${os.hostname()}:${process.pid}`],
      [queued.id, queueOwnerOf("redis://x#q")],
      [remote.id, "another-machine:1"],
    ];
    for (const [id, owner] of owners) await withPrisma((p) => p.run.update({ where: { id }, data: { status: "running", owner } }));
    await initStore();
    expect(await getRunById({ id: dead.id })).toMatchObject({ status: "interrupted", owner: null });
    for (const id of [mine.id, queued.id, remote.id]) expect((await getRunById({ id }))?.status).toBe("running");
    expect(await markInterruptedRuns()).toBe(0);
  });
});
