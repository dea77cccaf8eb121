import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModel } from "@/lib/agent/models";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { createAnnotation, listMachineTagsBySource } from "@/lib/db/annotations";
import { appendTurn, createEpisode, finishEpisode, getEpisodeById } from "@/lib/db/episodes";
import { initStore } from "@/lib/db/startup";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { runScan, type ScanProgress } from "./run-scan";
import { getScanById, listScans } from "./scans";

const QUESTION = "Did the agent submit before running any query that worked?";
// Quick retries; a long time per attempt, so a loaded machine does not turn a reply into a timeout.
const FAST = { baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 30_000, attempts: 2 };

/** A finished sql episode whose query names it (the scripted server matches the rule on that text). */
async function episode(name: string) {
  const ep = await createEpisode({
    environment: "sql",
    dataset: "spider",
    taskId: name,
    query: `list the singers (${name})`,
    playerKind: "model",
    model: "gpt-4",
    policy: "try-again",
    turnLimit: 10,
  });
  await appendTurn({
    episodeId: ep.id,
    turn: { index: 0, actor: "model", action: "SELECT * FROM singer", observation: "Error: no such table: singer", ok: false },
  });
  await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 0 } });
  return ep.id;
}

describe.each(storeEngines())("runScan on %s against the scripted model server", (engine) => {
  useTempStore("scan", engine);
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer({ rules: [] });
  });
  afterAll(() => server.close());

  it("asks about each episode, stores each answer as a scanner tag with provenance, records failures per episode, and measures agreement with people", async () => {
    await initStore();
    const ids: Record<string, string> = {};
    for (const n of ["ep1", "ep2", "ep3", "ep4", "ep5", "ep6", "ep7", "ep8"]) ids[n] = await episode(n);
    // People: ep1, ep2, ep7 tagged submit-blind; ep3 and ep4 tagged something else; the rest untagged.
    for (const n of ["ep1", "ep2", "ep7"]) await createAnnotation({ episodeId: ids[n]!, kind: "tag", tag: "submit-blind", author: "ann" });
    for (const n of ["ep3", "ep4"]) await createAnnotation({ episodeId: ids[n]!, kind: "tag", tag: "wrong-table", author: "ann" });
    server.setScript({
      rules: [
        { match: "(ep1)", replies: ["YES. Turn 1 failed and it submitted."] },
        { match: "(ep2)", replies: ["No - it ran a query that worked first."] },
        { match: "(ep3)", replies: ["**Yes**: submitted after an error at turn 1."] },
        { match: "(ep4)", replies: ["no"] },
        { match: "(ep5)", replies: ["never"], faults: [{ kind: "500", times: 99 }] },
        { match: "(ep6)", replies: ["It is hard to say."] },
        { match: "(ep7)", replies: ["yes, turn 1"] },
        { match: "(ep8)", replies: ["no"] },
      ],
    });
    const model = resolveModel("scan-model", { adhoc: { baseURL: server.baseURL, apiKey: "k" } });
    const seen: ScanProgress[] = [];
    const r = await runScan({
      question: QUESTION,
      tag: "submit-blind",
      model,
      filters: { environment: ["sql"] },
      concurrency: 3,
      retry: FAST,
      onProgress: (p) => seen.push(p),
    });

    expect(r).toMatchObject({ total: 8, done: 8, yes: 3, no: 3, errors: 2, tag: "submit-blind", model: "adhoc:scan-model@" + new URL(server.baseURL).host });
    expect(seen[0]).toMatchObject({ done: 0, total: 8 });
    expect(seen.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const byEp = Object.fromEntries(r.answers.map((a) => [a.episodeId, a]));
    expect(byEp[ids.ep5!]!.answer).toBe("error");
    expect(byEp[ids.ep5!]!.text).toMatch(/HTTP 500/);
    expect(byEp[ids.ep6!]).toMatchObject({ answer: "error", text: "the reply said neither yes nor no: It is hard to say." });
    expect(byEp[ids.ep3!]).toMatchObject({ answer: "yes", text: "submitted after an error at turn 1." });

    // Stored: one scanner tag per episode, with the scan's provenance.
    const tags = await listMachineTagsBySource({ source: "scanner", author: r.scanId });
    expect(tags).toHaveLength(8);
    const tagOf = Object.fromEntries(tags.map((t) => [t.episodeId, t.tag]));
    expect([ids.ep1, ids.ep2, ids.ep5, ids.ep6].map((id) => tagOf[id!])).toEqual([
      "submit-blind",
      "submit-blind:no",
      "submit-blind:error",
      "submit-blind:error",
    ]);
    for (const t of tags) {
      expect(t.provenance).toEqual({ scanId: r.scanId, model: r.model, prompt: r.prompt, at: r.at });
    }
    expect(r.prompt).toContain(`Question: ${QUESTION}`);
    expect(Date.parse(r.at)).toBeGreaterThan(Date.now() - 60_000);
    // The machine tags are not the person's: the list's tags are unchanged.
    expect((await getEpisodeById({ id: ids.ep3! }))!.tags).toBe("wrong-table");

    // Agreement on the 5 answered episodes people tagged: ep1 and ep7 yes/yes, ep3 yes/no, ep2 no/yes, ep4 no/no.
    // precision 2/3, recall 2/3; observed 3/5, chance 3/5*3/5 + 2/5*2/5 = 0.52, kappa 0.08/0.48 = 1/6.
    const scan = await getScanById({ scanId: r.scanId });
    expect(scan).toMatchObject({ tag: "submit-blind", question: QUESTION, episodes: 8, yes: 3, no: 3, errors: 2 });
    expect(scan!.agreement).toMatchObject({ episodes: 5, truePositive: 2, falsePositive: 1, falseNegative: 1, trueNegative: 1 });
    expect(scan!.agreement!.precision).toBeCloseTo(2 / 3, 12);
    expect(scan!.agreement!.recall).toBeCloseTo(2 / 3, 12);
    expect(scan!.agreement!.kappa).toBeCloseTo(1 / 6, 12);
    expect(scan!.answers.find((a) => a.episodeId === ids.ep8)!.person).toBeNull();
    expect((await listScans()).map((s) => s.scanId)).toEqual([r.scanId]);
  }, 60_000);

  it("keeps a second scan apart from the first and stops between episodes when aborted", async () => {
    server.setScript({ rules: [], fallback: "no", delayMs: 50 });
    const model = resolveModel("scan-model", { adhoc: { baseURL: server.baseURL } });
    const ctrl = new AbortController();
    const r = await runScan({
      question: QUESTION,
      tag: "submit-blind",
      model,
      filters: {},
      concurrency: 1,
      retry: FAST,
      signal: ctrl.signal,
      onProgress: (p) => p.done === 2 && ctrl.abort(),
    });
    expect(r.done).toBe(2);
    expect(await listMachineTagsBySource({ source: "scanner", author: r.scanId })).toHaveLength(2);
    expect(await listScans()).toHaveLength(2);
  }, 60_000);

  it("shows no sealed task's episode to the model (an unsubmitted baseline episode seals the task)", async () => {
    server.setScript({ rules: [], fallback: "yes" });
    const model = resolveModel("scan-model", { adhoc: { baseURL: server.baseURL } });
    await createEpisode({
      environment: "sql",
      dataset: "spider",
      taskId: "ep1",
      query: "list the singers (ep1)",
      playerKind: "human",
      annotator: "ann-b",
      turnLimit: 10,
      mode: "baseline",
      feedback: "none",
    });
    const before = server.requests.length;
    const r = await runScan({ question: QUESTION, tag: "submit-blind", model, filters: { taskId: ["ep1", "ep2"] }, retry: FAST });
    expect(r).toMatchObject({ total: 1, done: 1, sealed: 2, yes: 1 });
    expect(r.answers.map((a) => a.episodeId)).toEqual([(await listMachineTagsBySource({ source: "scanner", author: r.scanId }))[0]!.episodeId]);
    expect(server.requests.length - before).toBe(1);
  }, 60_000);
});
