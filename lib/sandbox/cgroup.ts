import "server-only";

import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Per-sandbox control groups for the local backend: a pids cap (a fork bomb stops at it, the
 * host's other processes are not counted, unlike RLIMIT_NPROC which is per uid) and a memory cap
 * on the sandbox as a whole. Works with cgroup v1 (pids + memory hierarchies) and v2.
 */
export interface SandboxCgroup {
  /** `cgroup.procs` files a process writes its pid into to join (one per hierarchy). */
  readonly procsFiles: string[];
  /** Pids currently in the group. */
  pids(): number[];
  /** Kills every process in the group and removes it. Safe to call twice. */
  destroy(): Promise<void>;
}

const ROOT = "/sys/fs/cgroup";

type Layout = { kind: "v1"; pids: string; memory: string } | { kind: "v2"; base: string } | null;
let layout: Layout | undefined;

function ownPath(controller: string): string {
  // /proc/self/cgroup lines: "hierarchy-id:controllers:path"; v2 is "0::path".
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, ctrls, p] = line.split(":");
    if (ctrls?.split(",").includes(controller)) return p ?? "/";
  }
  return "/";
}

function writable(dir: string): boolean {
  const probe = path.join(dir, `ic-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function detect(): Layout {
  try {
    if (existsSync(path.join(ROOT, "pids", "cgroup.procs")) && existsSync(path.join(ROOT, "memory", "cgroup.procs"))) {
      const pids = path.join(ROOT, "pids", ownPath("pids"));
      const memory = path.join(ROOT, "memory", ownPath("memory"));
      if (writable(pids) && writable(memory)) return { kind: "v1", pids, memory };
    }
    const controllers = path.join(ROOT, "cgroup.controllers");
    if (existsSync(controllers)) {
      const have = readFileSync(controllers, "utf8").split(/\s+/);
      if (have.includes("pids") && have.includes("memory")) {
        // Our processes cannot share a non-root v2 group with child groups that have
        // controllers enabled, so sandbox groups hang under one of our own at the root.
        const base = path.join(ROOT, "intercode-sandboxes");
        mkdirSync(base, { recursive: true });
        writeFileSync(path.join(ROOT, "cgroup.subtree_control"), "+pids +memory");
        writeFileSync(path.join(base, "cgroup.subtree_control"), "+pids +memory");
        if (writable(base)) return { kind: "v2", base };
      }
    }
  } catch {
    // not writable here: no cgroups
  }
  return null;
}

/** Whether per-sandbox cgroups can be made here, and which version. */
export function cgroupSupport(): "v1" | "v2" | null {
  if (layout === undefined) layout = detect();
  return layout?.kind ?? null;
}

function readPids(file: string): number[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function killAll(file: string): void {
  for (let round = 0; round < 50; round++) {
    const pids = readPids(file);
    if (pids.length === 0) return;
    for (const sig of ["SIGSTOP", "SIGKILL"] as const) {
      for (const pid of pids) {
        try {
          process.kill(pid, sig);
        } catch {
          // already gone
        }
      }
    }
  }
}

async function removeDir(dir: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      rmdirSync(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      // EBUSY while the last processes are being reaped: retry shortly
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** Creates the groups for one sandbox with its caps; null when cgroups are not available. */
export function createSandboxCgroup(name: string, caps: { processes: number; memoryBytes: number }): SandboxCgroup | null {
  const l = cgroupSupport() === null ? null : layout!;
  if (!l) return null;
  if (l.kind === "v1") {
    const pidsDir = path.join(l.pids, name);
    const memDir = path.join(l.memory, name);
    mkdirSync(pidsDir);
    mkdirSync(memDir);
    writeFileSync(path.join(pidsDir, "pids.max"), String(caps.processes));
    writeFileSync(path.join(memDir, "memory.limit_in_bytes"), String(caps.memoryBytes));
    try {
      writeFileSync(path.join(memDir, "memory.memsw.limit_in_bytes"), String(caps.memoryBytes));
    } catch {
      // no swap accounting: the memory cap alone
    }
    const procs = [path.join(pidsDir, "cgroup.procs"), path.join(memDir, "cgroup.procs")];
    return {
      procsFiles: procs,
      pids: () => readPids(procs[0]!),
      destroy: async () => {
        killAll(procs[0]!);
        killAll(procs[1]!);
        await removeDir(pidsDir);
        await removeDir(memDir);
      },
    };
  }
  const dir = path.join(l.base, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, "pids.max"), String(caps.processes));
  writeFileSync(path.join(dir, "memory.max"), String(caps.memoryBytes));
  try {
    writeFileSync(path.join(dir, "memory.swap.max"), "0");
  } catch {
    // no swap controller
  }
  const procs = path.join(dir, "cgroup.procs");
  return {
    procsFiles: [procs],
    pids: () => readPids(procs),
    destroy: async () => {
      try {
        writeFileSync(path.join(dir, "cgroup.kill"), "1");
      } catch {
        killAll(procs);
      }
      killAll(procs);
      await removeDir(dir);
    },
  };
}

/** Removes sandbox groups (named `ic-sandbox-<pid>-...`) whose creating process is gone. */
export async function removeOrphanCgroups(isDead: (pid: number) => boolean): Promise<void> {
  if (cgroupSupport() === null) return;
  const l = layout!;
  const parents = l.kind === "v1" ? [l.pids, l.memory] : [l.base];
  for (const parent of parents) {
    let names: string[] = [];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^ic-sandbox-(\d+)-/.exec(name);
      if (!m || !isDead(Number(m[1]))) continue;
      const dir = path.join(parent, name);
      killAll(path.join(dir, "cgroup.procs"));
      await removeDir(dir);
    }
  }
}
