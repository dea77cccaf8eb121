import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * `npm run bench -- eval [--datasets spider-dev] [--tasks 200] [--concurrency 8] [--no-page] [--json]`:
 * batch evaluation with the scripted OpenAI-compatible server replying instantly (every task
 * solved by its gold solution under Try Again):
 * - throughput (episodes per minute) and the time per turn the harness adds beyond the sandbox
 *   (the environment's reset/step/evaluate/submit), with and without the model's HTTP round trip
 *   to the local server. Target: under 5 ms per turn;
 * - the same run launched in a Studio server from the runs page's API while Chromium shows
 *   /runs/<id>: the delay from each episode's end (as stored) to its row on the page showing it.
 *   Target: under 1 s. Builds the app when a source is newer (`--skip-build` uses the build as it
 *   is) and drives Chromium (`--chromium PATH`, default /usr/bin/chromium).
 * Datasets: InterCode's sets once fetched (`icstudio datasets fetch intercode`), or demo-sql, demo-bash.
 */
export default async function main(argv: string[] = []): Promise<void> {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const json = argv.includes("--json");
  const datasets = (arg("datasets") ?? "spider-dev").split(",");
  const limit = Number(arg("tasks") ?? 200);
  const levels = (arg("concurrency") ?? "8").split(",").map(Number);

  process.env.IC_DB ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-eval-")), "studio.db");
  const { loadDataset } = await import("@/lib/datasets/registry");
  const { startScriptedServer } = await import("@/lib/agent/scripted-server");
  const { goldScript } = await import("@/lib/agent/scripts");
  const { resolveModel } = await import("@/lib/agent/models");
  const { runEval } = await import("@/lib/runs/run-eval");
  const { dbRecorder } = await import("@/lib/episodes/db-recorder");
  const { dbRunStore } = await import("@/lib/runs/run-store");
  const { closeStore } = await import("@/lib/db/client");
  const { shutdownSandboxBackends } = await import("@/lib/sandbox");

  const rows: {
    dataset: string;
    concurrency: number;
    episodes: number;
    turns: number;
    solved: number;
    seconds: number;
    episodesPerMinute: number;
    loopMsPerTurn: number;
    storeMsPerTurn: number;
    modelHttpMsPerTurn: number;
    sandboxMsPerTurn: number;
  }[] = [];
  let harness: Awaited<ReturnType<typeof measureHarness>> | null = null;
  const server = await startScriptedServer({ rules: [] });
  if (argv.includes("--page-only")) datasets.length = 0;
  try {
    const model = resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey: "bench" } });
    const stamp = Date.now().toString(36);
    for (const dataset of datasets) {
      const tasks = loadDataset(dataset).slice(0, limit);
      const env = tasks[0]!.env;
      server.setScript(goldScript("try-again", tasks));
      for (const concurrency of levels) {
        const t0 = performance.now();
        const r = await runEval({
          runName: `bench-${dataset}-${concurrency}-${stamp}`,
          config: { env, dataset, model: model.info.id, policy: "try-again", turns: 10, handicap: false, refineTurns: 0 },
          tasks,
          model,
          recorder: dbRecorder(),
          store: dbRunStore(),
          concurrency,
        });
        const seconds = (performance.now() - t0) / 1000;
        const turns = r.outcomes.reduce((s, o) => s + o.turns, 0);
        const sum = (f: (o: (typeof r.outcomes)[number]) => number) => r.outcomes.reduce((s, o) => s + f(o), 0);
        rows.push({
          dataset,
          concurrency,
          episodes: r.outcomes.length,
          turns,
          solved: r.summary.solved,
          seconds: round(seconds, 2),
          episodesPerMinute: round((r.outcomes.length / seconds) * 60, 1),
          loopMsPerTurn: round(sum((o) => o.totalMs - o.envMs - o.modelMs - o.storeMs) / turns, 2),
          storeMsPerTurn: round(sum((o) => o.storeMs) / turns, 2),
          modelHttpMsPerTurn: round(sum((o) => o.modelMs) / turns, 2),
          sandboxMsPerTurn: round(sum((o) => o.envMs) / turns, 1),
        });
      }
    }
    if (datasets.length) harness = await measureHarness(server, model, Number(arg("harness-episodes") ?? 20));
  } finally {
    await server.close();
    await Promise.all([closeStore(), shutdownSandboxBackends()]);
  }
  const page = argv.includes("--no-page")
    ? null
    : await measureRunPage(arg("datasets")?.split(",")[0] ?? "spider-dev", limit, levels.at(-1)!, {
        build: !argv.includes("--skip-build"),
        chromiumPath: arg("chromium") ?? "/usr/bin/chromium",
      });
  if (json) {
    process.stdout.write(JSON.stringify({ rows, harness, page }, null, 2) + "\n");
    return;
  }
  const header = [
    "dataset",
    "conc",
    "episodes",
    "turns",
    "solved",
    "seconds",
    "episodes/min",
    "loop ms/turn",
    "store ms/turn",
    "model HTTP ms/turn",
    "sandbox ms/turn",
  ];
  const table = [
    header,
    ...rows.map((r) =>
      [
        r.dataset,
        r.concurrency,
        r.episodes,
        r.turns,
        r.solved,
        r.seconds,
        r.episodesPerMinute,
        r.loopMsPerTurn,
        r.storeMsPerTurn,
        r.modelHttpMsPerTurn,
        r.sandboxMsPerTurn,
      ].map(String),
    ),
  ];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  process.stdout.write(table.map((row) => row.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n") + "\n");
  if (harness) {
    const h = harness;
    process.stdout.write(
      `\nharness alone (an environment whose actions cost nothing, ${h.turns} turns, concurrency 1), per turn:\n` +
        `  loop (prompts, parsing, context fit, events)  median ${h.loopMsMedian} ms  mean ${h.loopMsMean} ms\n` +
        `  store writes (turn committed before it is reported)  median ${h.storeMsMedian} ms\n` +
        `  model call over HTTP to the local scripted server  median ${h.modelMsMedian} ms\n` +
        `  harness total (loop + store)  median ${h.harnessMsMedian} ms wall  (target < 5 ms)\n` +
        `  CPU time per turn (median): loop ${h.cpuLoopMsMedian} ms, store ${h.cpuStoreMsMedian} ms, model call + in-process server ${h.cpuModelMsMedian} ms; process total ${h.cpuMsPerTurn} ms\n` +
        `  load average during the run: ${h.loadAverage}\n`,
    );
  }
  if (page) {
    process.stdout.write(
      `\nthe same run launched in the server (POST /api/runs) with /runs/<id> open in Chromium:\n` +
        `  ${page.episodes} episodes in ${page.seconds} s: ${page.episodesPerMinute} episodes/min (in the server, the page watching)\n` +
        `  episode end (stored) -> its row on the page: median ${page.delayMsMedian} ms, p95 ${page.delayMsP95} ms, max ${page.delayMsMax} ms over ${page.measured} episodes  (target < 1000 ms)\n` +
        `  final page: progress "${page.progressText}", success rate "${page.successRateText}"\n`,
    );
  }
}

/**
 * Launches the run in a real Studio server (its own temporary store, the scripted model in a
 * models file) through the runs page's API, with /runs/<id> open in Chromium, and times each
 * episode from its stored end to the moment its row on the page shows it finished.
 */
async function measureRunPage(dataset: string, limit: number, concurrency: number, { build, chromiumPath }: { build: boolean; chromiumPath: string }) {
  const { ensureBuild, spawnStudio } = await import("@/lib/testing/studio-server");
  const { startScriptedServer } = await import("@/lib/agent/scripted-server");
  const { goldScript } = await import("@/lib/agent/scripts");
  const { loadDataset } = await import("@/lib/datasets/registry");
  const { chromium } = await import("playwright-core");
  const tasks = loadDataset(dataset).slice(0, limit);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-runpage-"));
  const scripted = await startScriptedServer(goldScript("try-again", tasks));
  const models = path.join(dir, "models.json");
  fs.writeFileSync(
    models,
    JSON.stringify({
      models: [
        {
          id: "scripted",
          provider: "openai-compatible",
          model: "scripted",
          baseURL: scripted.baseURL,
          contextWindow: 32768,
          price: { inputPerMtok: 0, outputPerMtok: 0 },
        },
      ],
    }),
  );
  if (build) ensureBuild();
  const studio = await spawnStudio({ IC_DB: path.join(dir, "studio.db"), IC_MODELS_CONFIG: models });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  try {
    const page = await browser.newPage();
    // Record, for every task row, when it first shows a finished status (the page's clock is this machine's).
    // A string, not a function: tsx's helpers (__name) do not exist in the page.
    await page.addInitScript(`
      const seen = {};
      window.__seen = seen;
      const scan = () => {
        for (const el of document.querySelectorAll('[data-testid="run-task"]')) {
          const s = el.getAttribute("data-status");
          const t = el.getAttribute("data-task");
          if (s && s !== "pending" && s !== "running" && !(t in seen)) seen[t] = Date.now();
        }
      };
      const start = () => new MutationObserver(scan).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
      if (document.documentElement) start(); else document.addEventListener("readystatechange", start, { once: true });
    `);
    await page.goto(`${studio.url}/runs`);
    const res = await fetch(`${studio.url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        env: tasks[0]!.env,
        dataset,
        selection: { kind: "slice", limit },
        model: "scripted",
        policy: "try-again",
        turns: 10,
        concurrency,
      }),
    });
    const launched = (await res.json()) as { id: string };
    if (!res.ok) throw new Error(`launch refused: ${JSON.stringify(launched)}`);
    const id = launched.id;
    await page.goto(`${studio.url}/runs/${id}`);
    await page.waitForSelector('[data-testid="run-task"]');
    const attachedAt = Date.now();
    await page.waitForSelector('[data-testid="run-view"][data-live="0"]', { timeout: 30 * 60_000 });
    const seen = (await page.evaluate("window.__seen")) as Record<string, number>;
    const view = (await (await fetch(`${studio.url}/api/runs/${id}`)).json()) as {
      startedAt: number;
      endedAt: number;
      done: number;
      tasks: { taskId: string; endedAt: number | null }[];
    };
    // Episodes that ended once the page was following (the ones before it are in its first render).
    const delays = view.tasks
      .filter((t) => t.endedAt !== null && t.endedAt > attachedAt && seen[t.taskId] !== undefined)
      .map((t) => seen[t.taskId]! - t.endedAt!)
      .sort((a, b) => a - b);
    const q = (p: number) => delays[Math.min(delays.length - 1, Math.floor(p * delays.length))] ?? NaN;
    const seconds = (view.endedAt - view.startedAt) / 1000;
    return {
      episodes: view.done,
      seconds: round(seconds, 1),
      episodesPerMinute: round((view.done / seconds) * 60, 1),
      measured: delays.length,
      delayMsMedian: q(0.5),
      delayMsP95: q(0.95),
      delayMsMax: delays.at(-1) ?? NaN,
      progressText: ((await page.textContent('[data-testid="run-progress"]')) ?? "").trim(),
      successRateText: ((await page.textContent('[data-testid="run-success-rate"]')) ?? "").trim(),
    };
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
    await studio.stop();
    await scripted.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The harness's own cost per turn, apart from any sandbox: Try Again over an environment whose
 * actions and scoring return at once (so what remains is the loop, the store and the model call).
 */
async function measureHarness(
  server: import("@/lib/agent/scripted-server").ScriptedServer,
  model: import("@/lib/agent/models").ResolvedModel,
  episodes: number,
) {
  const { runEpisode } = await import("@/lib/agent/run-episode");
  const { dbRecorder } = await import("@/lib/episodes/db-recorder");
  const { loadDataset } = await import("@/lib/datasets/registry");
  const task = loadDataset("demo-sql")[0]!;
  const TURNS = 10;
  server.setScript({ rules: [{ match: task.query, replies: ["Looking.\n```sql\nSELECT 1\n```"] }] });
  const instant: import("@/lib/env/types").Environment = {
    env: "sql",
    task: null,
    reset: async () => ({ observation: task.query }),
    step: async (action) => ({ observation: `[(1,)] for ${action.length} chars`, ok: true, done: false }),
    submit: async () => ({ reward: 0, breakdown: { kind: "sql", overlap: 0, order: null }, goldObservation: "", agentObservation: "" }),
    evaluate: async () => ({ reward: 0, breakdown: { kind: "sql", overlap: 0, order: null }, goldObservation: "", agentObservation: "" }),
    close: async () => {},
  };
  const recorder = dbRecorder();
  const loop: number[] = [];
  const store: number[] = [];
  const modelMs: number[] = [];
  const harnessMs: number[] = [];
  const cpuLoop: number[] = [];
  const cpuStore: number[] = [];
  const cpuModel: number[] = [];
  let turns = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < episodes + 2; i++) {
    const o = await runEpisode({ task, model, policy: "try-again", maxTurns: TURNS, recorder, environment: instant });
    if (i < 2) continue; // warm-up
    turns += o.turns;
    const l = (o.totalMs - o.envMs - o.modelMs - o.storeMs) / o.turns;
    loop.push(l);
    store.push(o.storeMs / o.turns);
    modelMs.push(o.modelMs / o.turns);
    harnessMs.push(l + o.storeMs / o.turns);
    cpuLoop.push((o.cpu.totalMs - o.cpu.storeMs - o.cpu.modelMs) / o.turns);
    cpuStore.push(o.cpu.storeMs / o.turns);
    cpuModel.push(o.cpu.modelMs / o.turns);
  }
  const cpu = process.cpuUsage(cpu0);
  const median = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0, 2);
  return {
    turns,
    loopMsMedian: median(loop),
    loopMsMean: round(loop.reduce((a, b) => a + b, 0) / (loop.length || 1), 2),
    storeMsMedian: median(store),
    modelMsMedian: median(modelMs),
    harnessMsMedian: median(harnessMs),
    cpuMsPerTurn: round((cpu.user + cpu.system) / 1000 / turns, 2),
    /** CPU time per turn by part (robust when the machine is busy): loop, store, model call incl. the in-process server. */
    cpuLoopMsMedian: median(cpuLoop),
    cpuStoreMsMedian: median(cpuStore),
    cpuModelMsMedian: median(cpuModel),
    loadAverage: (await import("node:os"))
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" "),
  };
}

function round(x: number, d: number): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}
