import "server-only";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { z } from "zod";
import { configuredDockerHosts, connectDocker, OWNER_LABEL, PING_TIMEOUT_MS, SANDBOX_LABEL, withTimeout } from "./docker-hosts";

/**
 * What `icstudio doctor` sees of the Studio's helpers and sandboxes from outside the server: the
 * machine's processes (SQLite helpers, bubblewrap sandboxes) read from /proc, and the sandbox
 * containers of each Docker host, each with its age and the process that owns it. Orphans (an
 * owner that is gone) are marked: they are what a reaper failed to end.
 */

export const MachineResourceSchema = z.object({
  kind: z.enum(["sqlite-helper", "local-sandbox", "docker-sandbox"]),
  /** A process id, or a container's short id. */
  id: z.string(),
  /** The owning process (host:pid for a container). */
  owner: z.string(),
  /** Whether the owner is still running. */
  ownerAlive: z.boolean(),
  ageMs: z.number(),
  /** Resident memory (processes only). */
  rssBytes: z.number().nullable(),
  /** The docker host, for containers. */
  host: z.string().nullable(),
});
export type MachineResource = z.infer<typeof MachineResourceSchema>;

const CLOCK_TICKS = 100;

function bootTimeMs(): number {
  const line = readFileSync("/proc/stat", "utf8")
    .split("\n")
    .find((l) => l.startsWith("btime "));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1000;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Which Studio resource a process is, from its command line, or null. */
export function classifyProcess(argv: string[]): "sqlite-helper" | "local-sandbox" | null {
  if (argv.some((a) => a.endsWith("/sqlite-child.mjs") || a === "sqlite-child.mjs")) return "sqlite-helper";
  // A Studio sandbox: bwrap as the local backend starts it (lib/sandbox/local.ts bwrapArgs).
  if (argv[0] && /(^|\/)bwrap$/.test(argv[0]) && argv.includes("--as-pid-1") && argv.includes("--die-with-parent") && argv.includes("--clearenv"))
    return "local-sandbox";
  return null;
}

/** The Studio helper processes and bubblewrap sandboxes running on this machine (Linux /proc). */
export function listMachineProcesses(now = Date.now()): MachineResource[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const boot = bootTimeMs();
  const pageSize = 4096;
  const out: MachineResource[] = [];
  for (const pid of pids) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const kind = classifyProcess(argv);
      if (!kind) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name (which may hold spaces) in parentheses.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(f[1]);
      const started = boot + (Number(f[19]) / CLOCK_TICKS) * 1000;
      const rss = Number(f[21]) * pageSize;
      out.push({ kind, id: pid, owner: String(ppid), ownerAlive: ppid > 1 && alive(ppid), ageMs: Math.max(0, now - started), rssBytes: rss, host: null });
    } catch {
      // The process ended while being read.
    }
  }
  return out.sort((a, b) => b.ageMs - a.ageMs);
}

/** The sandbox containers of every Docker host that answers (a host that does not is skipped and named). */
export async function listDockerSandboxes(now = Date.now()): Promise<{ sandboxes: MachineResource[]; unreachable: string[] }> {
  const sandboxes: MachineResource[] = [];
  const unreachable: string[] = [];
  const me = os.hostname();
  for (const host of configuredDockerHosts()) {
    try {
      const docker = connectDocker(host);
      const list = await withTimeout(docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL] } }), PING_TIMEOUT_MS, `docker host ${host.name}`);
      for (const c of list) {
        const owner = c.Labels[OWNER_LABEL] ?? "";
        const [h, pid] = owner.split(":");
        sandboxes.push({
          kind: "docker-sandbox",
          id: c.Id.slice(0, 12),
          owner,
          // An owner on another machine cannot be checked from here: counted alive.
          ownerAlive: h !== me || (pid !== undefined && alive(Number(pid))),
          ageMs: Math.max(0, now - c.Created * 1000),
          rssBytes: null,
          host: host.name,
        });
      }
    } catch {
      unreachable.push(host.name);
    }
  }
  return { sandboxes, unreachable };
}
