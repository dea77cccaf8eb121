/**
 * `npm run bench -- playground [--n 200] [--backend local|docker|auto] [--json]`: round trip of
 * one action through the playground websocket (send the action → receive its turnEnd, which
 * carries the whole observation and is sent after the turn is stored), beside the same action run
 * directly on an Environment in the same run. Actions: `echo hi` (bash), `SELECT 1` (sql),
 * `1+1` (python). Target: the websocket path adds under 5 ms at the median.
 *
 * Direct and websocket runs alternate in blocks so that drift in machine load hits both alike.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import type { EnvName, Task } from "@/lib/datasets/types";

interface Row {
  env: string;
  action: string;
  n: number;
  directMedian: number;
  directP95: number;
  wsMedian: number;
  wsP95: number;
  addedMedian: number;
  /** The store's appendTurn alone (part of the websocket path: the turn is committed before turnEnd). */
  storeMedian: number;
  storeP95: number;
}

function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median, p95: s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)] };
}

const CASES: { env: EnvName; dataset: string; action: string }[] = [
  { env: "bash", dataset: "demo-bash", action: "echo hi" },
  { env: "sql", dataset: "demo-sql", action: "SELECT 1" },
  { env: "python", dataset: "demo-python", action: "1+1" },
];

export default async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { n: { type: "string", default: "200" }, backend: { type: "string", default: "local" }, json: { type: "boolean", default: false } },
  });
  const n = Number(values.n);
  const backend = values.backend as "local" | "docker" | "auto";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-bench-playground-"));
  process.env.IC_DB = path.join(dir, "studio.db");

  const { loadDataset } = await import("@/lib/datasets/registry");
  const { createEnvironment } = await import("@/lib/env");
  const { createStudioServer } = await import("@/lib/http/studio-server");
  const { createLiveEpisodeManager, prepareStore } = await import("@/lib/live/wiring");
  const { closeStore } = await import("@/lib/db/client");
  const { appendTurn, createEpisode } = await import("@/lib/db/episodes");

  /** The store commit alone, timed the same way, on its own episode. */
  const timeStore = async (k: number): Promise<number[]> => {
    const ep = await createEpisode({
      environment: "python",
      dataset: "bench",
      taskId: "store",
      query: "store commit timing",
      playerKind: "human",
      turnLimit: k + 1,
    });
    const out: number[] = [];
    for (let i = 0; i < k; i++) {
      const t = performance.now();
      await appendTurn({ episodeId: ep.id, turn: { index: i, actor: "human", action: "1+1", observation: "2\n", ok: true } });
      out.push(performance.now() - t);
    }
    return out;
  };

  await prepareStore();
  const manager = createLiveEpisodeManager({ idleMs: 600_000, maxSandboxes: 4, backend });
  const { server } = createStudioServer({ token: null, manager, handle: (_q, res) => void res.writeHead(404).end() });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;

  const rows: Row[] = [];
  try {
    for (const c of CASES) {
      let task: Task | undefined;
      try {
        task = loadDataset(c.dataset)[0];
      } catch (err) {
        process.stderr.write(`playground bench: skipping ${c.env}: ${(err as Error).message}\n`);
        continue;
      }
      if (!task) continue;
      process.stderr.write(`playground bench: ${c.env} (${c.action}) × ${n}, direct and over the websocket…\n`);

      // Direct: the Environment's step, from the call to the observation.
      const env = await createEnvironment(c.env, { backend });
      try {
        await env.reset(task);
      } catch (err) {
        process.stderr.write(`playground bench: skipping ${c.env}: ${(err as Error).message}\n`);
        await env.close().catch(() => {});
        continue;
      }
      const direct: number[] = [];
      const runDirect = async (k: number) => {
        for (let i = 0; i < k; i++) {
          const t = performance.now();
          await env.step(c.action, { onOutput: () => {} });
          direct.push(performance.now() - t);
        }
      };

      // Websocket: one episode, every action from send to turnEnd.
      const ws = new WebSocket(url);
      // Messages are buffered; `until` consumes up to the first message of a type.
      const inbox: { type: string; message?: string }[] = [];
      let wake: (() => void) | null = null;
      ws.on("message", (d) => {
        const m = JSON.parse(String(d)) as { type: string; message?: string };
        if (m.type === "error") process.stderr.write(`playground bench: server error: ${m.message}\n`);
        inbox.push(m);
        wake?.();
      });
      const until = async (type: string): Promise<void> => {
        for (;;) {
          const i = inbox.findIndex((m) => m.type === type);
          if (i >= 0) {
            inbox.splice(0, i + 1);
            return;
          }
          await new Promise<void>((r) => (wake = r));
          wake = null;
        }
      };
      await new Promise((r) => ws.once("open", r));
      await until("hello");
      const opened = until("opened");
      ws.send(JSON.stringify({ type: "open", env: c.env, taskRef: `${task.dataset}:${task.id}`, turnLimit: 1000 }));
      await opened;
      const viaWs: number[] = [];
      const runWs = async (k: number) => {
        for (let i = 0; i < k; i++) {
          const t = performance.now();
          const done = until("turnEnd");
          ws.send(JSON.stringify({ type: "action", text: c.action, source: "console" }));
          await done;
          viaWs.push(performance.now() - t);
        }
      };

      // Warm both paths, then alternate blocks.
      await runDirect(10);
      await runWs(10);
      direct.length = 0;
      viaWs.length = 0;
      const block = 25;
      for (let done = 0; done < n; done += block) {
        const k = Math.min(block, n - done);
        await runDirect(k);
        await runWs(k);
      }
      const abandoned = until("abandoned");
      ws.send(JSON.stringify({ type: "abandon" }));
      await abandoned;
      ws.close();
      await env.close();

      const d = stats(direct);
      const w = stats(viaWs);
      const st = stats(await timeStore(n));
      rows.push({
        env: c.env,
        action: c.action,
        n,
        directMedian: d.median,
        directP95: d.p95,
        wsMedian: w.median,
        wsP95: w.p95,
        addedMedian: w.median - d.median,
        storeMedian: st.median,
        storeP95: st.p95,
      });
    }
  } finally {
    await manager.shutdown();
    server.close();
    await closeStore();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  if (values.json) {
    process.stdout.write(JSON.stringify({ backend, rows }, null, 2) + "\n");
  } else {
    const f = (x: number) => x.toFixed(2).padStart(8);
    process.stdout.write(`backend ${backend}; milliseconds; ws = send action → turnEnd (observation stored, then sent)\n`);
    process.stdout.write(
      `${"env".padEnd(7)}${"action".padEnd(10)}${"n".padStart(5)}  direct med  direct p95    ws med    ws p95   added med  target<5  store med  store p95  added-store\n`,
    );
    for (const r of rows) {
      process.stdout.write(
        `${r.env.padEnd(7)}${r.action.padEnd(10)}${String(r.n).padStart(5)}  ${f(r.directMedian)}    ${f(r.directP95)}  ${f(r.wsMedian)}  ${f(r.wsP95)}    ${f(r.addedMedian)}  ${r.addedMedian < 5 ? "yes" : "NO "}    ${f(r.storeMedian)}   ${f(r.storeP95)}   ${f(r.addedMedian - r.storeMedian)}\n`,
      );
    }
  }
  const code = rows.every((r) => r.addedMedian < 5) ? 0 : 1;
  // Sandbox backends may keep handles open; do not let them hold the process.
  setTimeout(() => process.exit(code), 200).unref();
  return code;
}
