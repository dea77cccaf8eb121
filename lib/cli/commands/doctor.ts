import "server-only";
import { z } from "zod";
import { defineCommand, printJson } from "../command";

/** `12 s`, `31 min`, `2.5 h`. */
export function formatAge(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** `icstudio doctor`: the Studio's live helper processes and sandboxes on this machine, with their ages. */
export default defineCommand({
  name: "doctor",
  summary:
    "List the Studio's live helper processes (SQLite engine helpers), bubblewrap sandboxes and Docker sandbox containers, with their ages, memory and owning process; those whose owner is gone are marked orphaned (exit code 1).",
  flags: z.object({
    json: z.boolean().default(false).describe("{resources: [{kind, id, owner, ownerAlive, ageMs, rssBytes, host}], unreachable: [docker hosts]}"),
  }),
  help: [
    "A server ends a helper or warm sandbox unused for IC_HELPER_IDLE_MS (default IC_IDLE_MS); an episode's own",
    "sandbox is closed after IC_IDLE_MS idle. The server's own list (owners and deadlines) is on /status.",
  ].join("\n"),
  async run({ values }) {
    const { listDockerSandboxes, listMachineProcesses } = await import("@/lib/sandbox/machine-resources");
    const now = Date.now();
    const docker = await listDockerSandboxes(now);
    const resources = [...listMachineProcesses(now), ...docker.sandboxes];
    const orphans = resources.filter((r) => !r.ownerAlive).length;
    if (values.json) printJson({ resources, unreachable: docker.unreachable });
    else {
      const rows = resources.map((r) => [
        r.kind,
        r.id,
        `${r.owner}${r.ownerAlive ? "" : " (gone: orphaned)"}`,
        formatAge(r.ageMs),
        r.rssBytes === null ? "-" : `${Math.round(r.rssBytes / 1048576)} MB`,
        r.host ?? "",
      ]);
      const head = ["kind", "id", "owner", "age", "memory", "docker host"];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      const line = (r: string[]) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd();
      process.stdout.write(resources.length ? [line(head), ...rows.map(line)].join("\n") + "\n" : "no Studio helper processes or sandboxes are running\n");
      for (const h of docker.unreachable) process.stdout.write(`docker host ${h} did not answer\n`);
      if (orphans) process.stdout.write(`${orphans} orphaned (their owner is gone)\n`);
    }
    return orphans ? 1 : 0;
  },
});
