import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replyFor, ruleFor, scriptedReplies, wrongAction } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { countRunEpisodesByRun } from "@/lib/db/run-episodes";
import { getRunById } from "@/lib/db/runs";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { prepareRun } from "@/lib/runs/prepare-run";
import { runEval } from "@/lib/runs/run-eval";
import { dbRunStore } from "@/lib/runs/run-store";
import { buildRunView } from "@/lib/runs/run-view";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { parseListParams, toEpisodeFilters } from "@/lib/viewer/list-params";
import { computeViewerStats } from "@/lib/stats/aggregates";
import { parseGroupBy } from "@/lib/stats/measures";

/**
 * The eval summary, the runs page and the stats page once disagreed on mean turns for a ReAct run
 * (issue 25). One ReAct run under InterCode's profile, played in process on the real store, the
 * SQL environment and the scripted model server: one task solved, one answered wrong, one that
 * never submits (the turn limit ends it with ReAct's forced final submit, a stored turn InterCode's
 * count leaves out). The three read the same figures, and the Run row's counts (what settling
 * wrote as the episodes ended) match them.
 */

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ rules: [] });
});
afterAll(async () => {
  await server?.close();
});

describe.each(storeEngines())("one ReAct run, three readers (%s)", (engine) => {
  useTempStore("run-agreement", engine);

  it("the eval summary, the runs page and the stats page give the same measures", async () => {
    const p = prepareRun(
      {
        env: "sql",
        dataset: "demo-sql",
        selection: { kind: "slice", offset: 0, limit: 3 },
        model: "scripted",
        policy: "react",
        turns: 3,
        concurrency: 2,
        handicap: false,
        refineTurns: 0,
        profile: "intercode",
        name: `agree-${engine}`,
      },
      { maxSandboxes: 4, launchedFrom: "cli", adhoc: { baseURL: server.baseURL, apiKey: "k" } },
    );
    const [solve, wrong, never] = p.tasks;
    server.setScript({
      rules: [
        ruleFor(solve!, scriptedReplies("react", solve!, "solve")),
        ruleFor(wrong!, scriptedReplies("react", wrong!, "wrong")),
        ruleFor(
          never!,
          Array.from({ length: 6 }, () => replyFor("react", never!, wrongAction(never!))),
        ),
      ],
    });
    const result = await runEval({ ...p, recorder: dbRecorder(), store: dbRunStore(), concurrency: 2 });
    const summary = result.summary;
    expect([summary.episodes, summary.solved]).toEqual([3, 1]);

    const view = await buildRunView(result.runId);
    const page = (await computeViewerStats({ filters: toEpisodeFilters(parseListParams({ run: result.runId })), groupBy: parseGroupBy("policy") })).success;
    expect(page).toHaveLength(1);
    const measures = (m: { episodes: number; solved: number; successRate: number; meanTurns: number; errorRate: number | null }) => [
      m.episodes,
      m.solved,
      m.successRate,
      m.meanTurns,
      m.errorRate,
    ];
    // The forced final submit is a stored turn InterCode's count leaves out: the stored turns give
    // another mean (so the test tells the counts apart); the runs page's per-task column counts as
    // the mean does, and names the stored turns only where they differ.
    const storedTurns = view!.tasks.reduce((s, t) => s + (t.storedTurns ?? t.turns), 0);
    expect(storedTurns / 3).not.toBe(summary.meanTurns);
    expect(view!.tasks.reduce((s, t) => s + t.turns, 0) / 3).toBeCloseTo(summary.meanTurns, 10);
    expect(view!.tasks.filter((t) => t.storedTurns !== undefined)).toHaveLength(1);
    expect(measures(view!.overall!)).toEqual(measures(summary));
    expect(measures(page[0]!)).toEqual(measures(summary));

    // The counts settling wrote, the runs list's and the run page's.
    const run = await getRunById({ id: result.runId });
    expect(run).toMatchObject({ status: "done", total: 3, done: 3, solved: 1, errors: summary.providerErrors });
    expect((await countRunEpisodesByRun({ runIds: [result.runId] })).get(result.runId)).toEqual({ done: 3, solved: 1, running: 0 });
    expect(view).toMatchObject({ done: 3, solved: 1, errors: summary.providerErrors, total: 3 });
  }, 120_000);
});
