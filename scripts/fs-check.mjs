// Runs every NL2Bash gold command on the project's file systems and reports empty output,
// errors and non-determinism. Usage:
//   node --import tsx --import ./scripts/hooks.mjs scripts/fs-check.mjs [fs1 ...] [--task fs1:12] [--backend local|docker] [--show] [--json]
import { checkGold, loadGoldExceptions, mapLimit, readNl2BashTasks } from "../lib/datasets/fs-check.ts";
import { shutdownSandboxBackends } from "../lib/sandbox/index.ts";
import { ensureFileSystem } from "../lib/datasets/bash-fs.ts";
import { sharedIntercodeDir } from "../lib/datasets/paths.ts";

const argv = process.argv.slice(2);
const show = argv.includes("--show");
const json = argv.includes("--json");
const only = argv.filter((_a, i) => argv[i - 1] === "--task");
const backend = argv.find((_a, i) => argv[i - 1] === "--backend") ?? "local";
const names = argv.filter((a, i) => /^fs[1-4]$/.test(a) && argv[i - 1] !== "--task");
const fss = names.length ? names : ["fs1", "fs2", "fs3", "fs4"];
const exceptions = await loadGoldExceptions();
const nowMs = Date.now();
const results = [];
for (const fs of fss) {
  await ensureFileSystem(fs);
  const tasks = await readNl2BashTasks(sharedIntercodeDir(), Number(fs.slice(2)));
  const picked = tasks.map((t, i) => ({ t, i })).filter(({ i }) => !only.length || only.includes(`${fs}:${i}`));
  const checks = await mapLimit(picked, 2, ({ t, i }) => checkGold(fs, i, t, nowMs, { backend }));
  for (const c of checks) {
    const exc = exceptions[fs]?.[String(c.index)];
    const unexplained = c.issues.filter((x) => !exc?.allow.includes(x));
    results.push({ ...c, unexplained, exception: exc?.reason });
    if (json) continue;
    const mark = c.issues.length === 0 ? "ok " : unexplained.length ? "BAD" : "exc";
    process.stdout.write(`${mark} ${fs}:${c.index} [${c.issues.join(",")}] ${Array.isArray(c.gold) ? c.gold.join("; ") : c.gold}\n`);
    if (show || unexplained.length) {
      const cut = (s) => (s.length > 600 ? s.slice(0, 600) + "..." : s);
      process.stdout.write(
        `    exit=${c.run.exitCode}${c.run.timedOut ? " (timeout)" : ""}\n    stdout: ${JSON.stringify(cut(c.run.stdout))}\n    stderr: ${JSON.stringify(cut(c.run.stderr))}\n    status: ${JSON.stringify(c.run.status)}\n`,
      );
    }
  }
}
const summary = {
  tasks: results.length,
  clean: results.filter((r) => r.issues.length === 0).length,
  explained: results.filter((r) => r.issues.length > 0 && r.unexplained.length === 0).length,
  unexplained: results.filter((r) => r.unexplained.length > 0).map((r) => `${r.fs}:${r.index} ${r.unexplained.join(",")}`),
};
if (json)
  process.stdout.write(
    JSON.stringify({ summary, results: results.map(({ run, ...r }) => ({ ...r, stdout: run.stdout, stderr: run.stderr, status: run.status })) }, null, 1) +
      "\n",
  );
else process.stdout.write(`\n${JSON.stringify(summary, null, 1)}\n`);
await shutdownSandboxBackends();
