import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { closeRawDb } from "@/lib/db/sqlite";
import type { OpenMessage } from "@/lib/live/protocol";
import type { LiveEventInput } from "@/lib/live/events";
import type { LiveEpisodeManager } from "./live-episodes";
import { closeStudy, createStudyFromSelection } from "@/lib/studies/studies";
import { createLiveEpisodeManager, prepareStore } from "@/lib/live/wiring";
import { loadDataset } from "@/lib/datasets/registry";
import { startAgent, startAgentSchema } from "./model-actor";

// The live episode manager with the real store, task sets and local sandboxes: the baseline seal
// and the study's conditions as the websocket sees them.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-live-seal-"));
process.env.IC_DB = path.join(dir, "studio.db");
const REF = "demo-bash:top-three-ips";
let manager: LiveEpisodeManager;

beforeAll(async () => {
  await prepareStore();
  manager = createLiveEpisodeManager({ idleMs: 60_000, maxSandboxes: 4, backend: "local" });
});
afterAll(async () => {
  await manager.shutdown();
  await closeStore().catch(() => {});
  closeRawDb();
  fs.rmSync(dir, { recursive: true, force: true });
});

const open = (over: Partial<OpenMessage>): OpenMessage => ({
  type: "open",
  env: "bash",
  taskRef: REF,
  mode: "play",
  feedback: "reward",
  turnLimit: 10,
  ...over,
});

describe("live episodes and the baseline seal", () => {
  it("a study open takes the study's conditions; the sealed task opens no play episode and shows no gold to another submit", async () => {
    const study = await createStudyFromSelection({
      name: "seal test",
      env: "bash",
      dataset: "demo-bash",
      selection: { kind: "slice", from: 3, count: 1 },
      feedback: "none",
      turnLimit: 7,
      showGoldAfterSubmit: true,
    });
    const seen: LiveEventInput[] = [];
    // Asks for play mode and reward feedback: the study's conditions win.
    const a = await manager.open(open({ studyId: study.id, annotator: "ann-a" }), (m) => seen.push(m));
    expect(a.view()).toMatchObject({ mode: "baseline", feedback: "none", turnLimit: 7, studyId: study.id });
    await manager.action(a, "echo hi", "console");
    expect(seen.find((m) => m.type === "turnEnd")).not.toHaveProperty("reward", expect.anything());

    // A task outside the study, and a study that does not exist.
    await expect(manager.open(open({ taskRef: "demo-bash:count-errors", studyId: study.id }), () => {})).rejects.toThrow(/not one of study/);
    await expect(manager.open(open({ studyId: "no-such-study" }), () => {})).rejects.toThrow(/study no-such-study/);

    // A play episode on the sealed task is refused, naming the study that seals it from its creation.
    await expect(manager.open(open({}), () => {})).rejects.toThrow(/sealed by the open study "seal test"/);
    // So is a model's episode (scored, and a person may take it over): the one manager checks both actors.
    const task = loadDataset("demo-bash").find((t) => `${t.dataset}:${t.id}` === REF)!;
    await expect(startAgent(task, startAgentSchema.parse({ model: "scripted" }))).rejects.toThrow(
      /a model run .* is refused: .* sealed by the open study "seal test"/,
    );

    // Another baseline episode may run (another annotator); its submit is scored, its gold withheld.
    const other: LiveEventInput[] = [];
    const b = await manager.open(open({ mode: "baseline", feedback: "none", annotator: "ann-b" }), (m) => other.push(m));
    await manager.submit(b);
    const bSubmitted = other.find((m) => m.type === "submitted");
    expect(bSubmitted).toMatchObject({ gold: "", goldObservation: "" });
    expect(other.find((m) => m.type === "status")).toMatchObject({ message: expect.stringMatching(/sealed by the open study/) });
    // Resuming that finished episode would show its gold: refused while sealed.
    await expect(manager.resume(b.id, () => {})).rejects.toThrow(/sealed/);

    // The annotator submits: their study shows the gold after submit and nothing else seals the task.
    await manager.submit(a);
    const aSubmitted = seen.find((m) => m.type === "submitted") as { gold: string; goldObservation: string };
    expect(aSubmitted.gold).toContain("sort");
    expect(aSubmitted.goldObservation.length).toBeGreaterThan(0);
    // Still sealed by the open study; closed, a play episode opens again.
    await expect(manager.open(open({}), () => {})).rejects.toThrow(/open study/);
    await closeStudy(study.id);
    const c = await manager.open(open({}), () => {});
    await manager.abandon(c);
  }, 120_000);
});
