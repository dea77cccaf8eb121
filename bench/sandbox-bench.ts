/**
 * `npm run bench -- sandbox-bench [--iterations N] [--resets N] [--gap MS]`: the sandbox backends'
 * own latencies (create, exec of `true`, a persistent shell's round trip) beside the bare
 * baselines measured in the same run (`bash -c true`, `bwrap ... true`, `docker exec ... true`).
 */
import { parseArgs } from "node:util";

import { createDockerBackend } from "@/lib/sandbox/docker";
import { createLocalBackend } from "@/lib/sandbox/local";
import { bashTrueSamples, benchSandboxBackend, bwrapTrueSamples, dockerExecTrueSamples, latencyStats, type LatencyStats } from "@/lib/sandbox/bench";

export default async function sandboxBenchMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { iterations: { type: "string", default: "50" }, resets: { type: "string", default: "10" }, gap: { type: "string", default: "1500" } },
  });
  const n = Number(values.iterations);
  const rows: [string, LatencyStats][] = [];
  rows.push(["baseline: bash -c true", latencyStats(await bashTrueSamples(n))]);
  rows.push(["baseline: bwrap ... true", latencyStats(await bwrapTrueSamples(n))]);
  const local = createLocalBackend();
  const la = await local.available();
  if (la.ok) {
    const r = await benchSandboxBackend(local, { iterations: n, resets: Number(values.resets), gapMs: Number(values.gap) });
    await local.shutdown?.();
    rows.push(["local: create", r.create], ["local: exec true", r.execTrue], ["local: shell round trip", r.shellRoundTrip]);
  } else process.stderr.write(`sandbox-bench: local skipped: ${la.reason}\n`);
  const docker = createDockerBackend();
  const da = await docker.available();
  if (da.ok) {
    rows.push(["baseline: docker exec true", latencyStats(await dockerExecTrueSamples(Math.min(n, 30)))]);
    const r = await benchSandboxBackend(docker, { iterations: n, resets: Number(values.resets), gapMs: Number(values.gap) });
    rows.push(["docker: create (warm pool)", r.create], ["docker: exec true", r.execTrue], ["docker: shell round trip", r.shellRoundTrip]);
    await docker.shutdown?.();
  } else process.stderr.write(`sandbox-bench: docker skipped: ${da.reason}\n`);
  const w = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`${"measure".padEnd(w)}  median ms  p95 ms    n\n`);
  for (const [k, s] of rows)
    process.stdout.write(`${k.padEnd(w)}  ${s.median.toFixed(2).padStart(9)}  ${s.p95.toFixed(2).padStart(6)}  ${String(s.n).padStart(3)}\n`);
  return 0;
}
