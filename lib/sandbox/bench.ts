import "server-only";

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import Docker from "dockerode";

import type { Sandbox, SandboxBackend, SandboxProcess, SandboxSpec } from "./types";

/** Median, 95th percentile and count of a set of samples (milliseconds). */
export interface LatencyStats {
  median: number;
  p95: number;
  n: number;
}

/** Summarises samples: nearest-rank median and p95. */
export function latencyStats(samples: number[]): LatencyStats {
  const s = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { median: rank(0.5), p95: rank(0.95), n: s.length };
}

/** Runs `fn` n times in turn and returns each run's wall time (milliseconds). */
export async function timeSamples(n: number, fn: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

function runProcess(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: "ignore" });
    p.on("error", reject);
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}`))));
  });
}

/** The bare baseline of the local backend: `bwrap <minimal namespaces> true`, one process each time. */
export function bwrapTrueSamples(n: number): Promise<number[]> {
  const args = [
    "--unshare-all",
    "--die-with-parent",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--",
    "/usr/bin/true",
  ];
  return timeSamples(n, () => runProcess("bwrap", args));
}

/** The bare baseline of a process start: `bash -c true`. */
export function bashTrueSamples(n: number): Promise<number[]> {
  return timeSamples(n, () => runProcess("bash", ["-c", "true"]));
}

/**
 * The bare baseline of the docker backend: one `docker exec <container> true` through the
 * engine API (create exec, start it attached, wait for its end), as InterCode runs each action.
 */
export async function dockerExecTrueSamples(n: number, image = "intercode-studio/bash:latest"): Promise<number[]> {
  const docker = new Docker({ socketPath: process.env.DOCKER_HOST?.replace(/^unix:\/\//, "") || "/var/run/docker.sock" });
  const container = await docker.createContainer({
    Image: image,
    Cmd: ["sleep", "infinity"],
    HostConfig: { NetworkMode: "none" },
    Labels: { "org.intercode-studio.sandbox": "bench" },
  });
  try {
    await container.start();
    return await timeSamples(n, async () => {
      const exec = await container.exec({ Cmd: ["true"], AttachStdout: true, AttachStderr: true });
      const stream = await exec.start({ hijack: true, stdin: false });
      await new Promise<void>((resolve) => {
        stream.on("end", resolve);
        stream.on("close", resolve);
        stream.resume();
      });
      await exec.inspect();
    });
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** One round trip through a persistent shell: write a command and a marker, read to the marker. */
export function shellRoundTrip(proc: SandboxProcess, command = "echo hi"): Promise<string> {
  const marker = `__IC_${Math.random().toString(36).slice(2)}__`;
  return new Promise((resolve) => {
    let text = "";
    const off = proc.onData((chunk) => {
      text += chunk.toString("utf8");
      const i = text.indexOf(marker);
      if (i >= 0) {
        off();
        resolve(text.slice(0, i));
      }
    });
    proc.write(`${command}; echo ${marker}\n`);
  });
}

/** Latencies of one backend: create (a reset), exec of `true`, a persistent-shell round trip. */
export interface SandboxBenchResult {
  create: LatencyStats;
  execTrue: LatencyStats;
  shellRoundTrip: LatencyStats;
}

/**
 * Measures a backend with a small task directory: `create` (waiting `gapMs` between resets, as
 * an episode would, so a warm pool can refill), `exec(["true"])` and a spawned bash's round trip.
 */
export async function benchSandboxBackend(
  backend: SandboxBackend,
  opts: { iterations?: number; resets?: number; gapMs?: number; spec?: SandboxSpec } = {},
): Promise<SandboxBenchResult> {
  const iterations = opts.iterations ?? 50;
  const resets = opts.resets ?? 10;
  let dir: string | undefined;
  let spec = opts.spec;
  if (!spec) {
    dir = mkdtempSync(path.join(os.tmpdir(), "ic-bench-"));
    for (let i = 0; i < 20; i++) writeFileSync(path.join(dir, `file${i}.txt`), `content ${i}\n`.repeat(50));
    spec = { image: "bash", files: { hostDir: dir, mountAt: "/testbed" } };
  }
  const s0 = await backend.create(spec); // warms the pool for this spec
  try {
    const createSamples: number[] = [];
    for (let i = 0; i < resets; i++) {
      await new Promise((r) => setTimeout(r, opts.gapMs ?? 1500));
      const t = performance.now();
      const s: Sandbox = await backend.create(spec);
      createSamples.push(performance.now() - t);
      await s.close();
    }
    await s0.exec(["true"]);
    const execSamples = await timeSamples(iterations, () => s0.exec(["true"]));
    const sh = s0.spawn(["/bin/bash", "--noprofile", "--norc"]);
    await shellRoundTrip(sh);
    const rtSamples = await timeSamples(iterations, () => shellRoundTrip(sh));
    sh.kill();
    return { create: latencyStats(createSamples), execTrue: latencyStats(execSamples), shellRoundTrip: latencyStats(rtSamples) };
  } finally {
    await s0.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
