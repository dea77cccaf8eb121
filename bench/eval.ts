import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * `npm run bench -- eval [--envs sql,bash] [--tasks N] [--json]`: batch evaluation throughput
 * with the scripted OpenAI-compatible server replying instantly (every task solved by its gold
 * solution under Try Again), at concurrency 1, 4 and 8; and the time per turn the harness adds
 * beyond the sandbox (the environment's reset/step/evaluate/submit) — with and without the model's
 * HTTP round trip to the local server. Target: under 5 ms per turn.
 */
export default async function main(argv: string[] = []): Promise<void> {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const json = argv.includes("--json");
  const envs = (arg("envs") ?? "sql,bash").split(",") as ("sql" | "bash")[];
  const limit = Number(arg("tasks") ?? 16);
  const levels = (arg("concurrency") ?? "1,4,8").split(",").map(Number);

  process.env.IC_DB ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-eval-")), "studio.db");
  const { loadDataset } = await import("@/lib/datasets/registry");
  const { startScriptedServer } = await import("@/lib/agent/scripted-server");
  const { goldScript } = await import("@/lib/agent/scripts");
  const { resolveModel } = await import("@/lib/agent/models");
  const { runEval } = await import("@/lib/agent/run-eval");
  const { dbRecorder, dbRunStore } = await import("@/lib/agent/db-store");
  const { closeStore } = await import("@/lib/db/client");
  const { shutdownSandboxBackends } = await import("@/lib/sandbox");

  const rows: {
    env: string;
    concurrency: number;
    episodes: number;
    turns: number;
    solved: number;
    seconds: number;
    episodesPerMinute: number;
    harnessMsPerTurn: number;
    harnessPlusModelMsPerTurn: number;
    sandboxMsPerTurn: number;
  }[] = [];
  const server = await startScriptedServer({ rules: [] });
  try {
    const model = resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey: "bench" } });
    const stamp = Date.now().toString(36);
    for (const env of envs) {
      const tasks = loadDataset(`demo-${env}`).slice(0, limit);
      server.setScript(goldScript("try-again", tasks));
      for (const concurrency of levels) {
        const t0 = performance.now();
        const r = await runEval({
          runName: `bench-${env}-${concurrency}-${stamp}`,
          config: { env, dataset: `demo-${env}`, model: model.info.id, policy: "try-again", turns: 10, handicap: false, refineTurns: 0 },
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
          env,
          concurrency,
          episodes: r.outcomes.length,
          turns,
          solved: r.summary.solved,
          seconds: round(seconds, 2),
          episodesPerMinute: round((r.outcomes.length / seconds) * 60, 1),
          harnessMsPerTurn: round(sum((o) => o.totalMs - o.envMs - o.modelMs) / turns, 2),
          harnessPlusModelMsPerTurn: round(sum((o) => o.totalMs - o.envMs) / turns, 2),
          sandboxMsPerTurn: round(sum((o) => o.envMs) / turns, 1),
        });
      }
    }
  } finally {
    await server.close();
    await Promise.all([closeStore(), shutdownSandboxBackends()]);
  }
  if (json) {
    process.stdout.write(JSON.stringify({ rows }, null, 2) + "\n");
    return;
  }
  const header = ["env", "conc", "episodes", "turns", "solved", "seconds", "episodes/min", "harness ms/turn", "+model HTTP ms/turn", "sandbox ms/turn"];
  const table = [header, ...rows.map((r) => [r.env, r.concurrency, r.episodes, r.turns, r.solved, r.seconds, r.episodesPerMinute, r.harnessMsPerTurn, r.harnessPlusModelMsPerTurn, r.sandboxMsPerTurn].map(String))];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  process.stdout.write(table.map((row) => row.map((c, i) => c.padStart(widths[i]!)).join("  ")).join("\n") + "\n");
  process.stdout.write("harness = turn time outside the sandbox and the model call (parsing, prompts, store writes, events); target < 5 ms\n");
}

function round(x: number, d: number): number {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}
