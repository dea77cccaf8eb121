import { z } from "zod";
import { BadInputError } from "@/lib/errors";
import type { SandboxImage } from "@/lib/sandbox/types";
import { defineCommand, log, printJson } from "../command";

export default defineCommand({
  name: "hosts",
  summary:
    "List the Docker hosts sandboxes run on (IC_DOCKER_HOSTS, else the local engine): up or down, Studio sandboxes running / cap, and which Studio images each has. With --load, put the missing images onto a host: streamed from a host that has them (docker save | docker load), else built there from docker/.",
  positionals: [
    { name: "host", help: "with --load: a host's name as listed (tcp://10.0.0.5:2376) or its number (1, 2, ...);\ndefault every host that lacks an image" },
  ],
  flags: z.object({
    load: z.boolean().default(false).describe("put the missing images onto the host (or every host that lacks one)"),
    image: z.string().optional().describe("--load: only these images (default all: bash,bash-intercode,python,sql,ctf)").meta({ value: "LIST" }),
    json: z.boolean().default(false).describe("the report as JSON on stdout"),
  }),
  help: [
    "IC_DOCKER_HOSTS: entries separated by commas, each unix:///path, tcp://host:port[?tls=/dir with ca.pem, cert.pem, key.pem]",
    "or ssh://user@host[:port][?key=/file], optionally ending in #max=N (live sandboxes on the host; default IC_MAX_SANDBOXES).",
    "Sandbox counts are every Studio process's running sandboxes, warm ones included.",
  ].join("\n"),
  async run({ values, positionals }) {
    const { configuredDockerHosts, defaultDockerHost, findDockerHost, SANDBOX_IMAGES } = await import("@/lib/sandbox/docker-hosts");
    const { loadImagesOntoHost, probeHosts } = await import("@/lib/sandbox/host-images");
    const settings = configuredDockerHosts();
    if (positionals.length && !values.load)
      throw new BadInputError(`a host name is only taken with --load (got ${JSON.stringify(positionals[0])})`, "arguments");
    const images = values.image !== undefined ? parseImages(values.image, SANDBOX_IMAGES) : SANDBOX_IMAGES;
    const hosts = await probeHosts(settings);

    if (!values.load) {
      const rows = hosts.map(({ setting, probe }) => ({
        name: setting.name,
        kind: setting.kind,
        up: probe.up,
        ...(probe.up ? {} : { reason: probe.reason }),
        sandboxes: probe.up ? probe.sandboxes.mine + probe.sandboxes.others : null,
        max: Number.isFinite(setting.max) ? setting.max : null,
        images: Object.fromEntries(SANDBOX_IMAGES.map((i) => [i, probe.up && probe.images.includes(i)])),
        pingMs: probe.up ? Math.round(probe.pingMs * 10) / 10 : null,
      }));
      const { config } = await import("@/lib/config");
      if (values.json) printJson({ from: config().dockerHosts ? "IC_DOCKER_HOSTS" : "the local engine", hosts: rows });
      else {
        const w = Math.max(4, ...rows.map((r) => r.name.length));
        process.stdout.write(`${"host".padEnd(w)}  state  sandboxes  images\n`);
        for (const r of rows) {
          const load = r.sandboxes === null ? "-" : `${r.sandboxes}/${r.max ?? "-"}`;
          const imgs = r.up ? SANDBOX_IMAGES.map((i) => (r.images[i] ? i : `(no ${i})`)).join(" ") : r.reason!;
          process.stdout.write(`${r.name.padEnd(w)}  ${(r.up ? "up" : "down").padEnd(5)}  ${load.padEnd(9)}  ${imgs}\n`);
        }
      }
      return rows.some((r) => !r.up) ? 1 : 0;
    }

    // --load: the targets, and every answering host (the local engine too, when it is not listed) as a source.
    const targets = positionals[0]
      ? [hosts.find((h) => h.setting === findDockerHost(settings, positionals[0]!))!]
      : hosts.filter(({ probe }) => !probe.up || images.some((i) => !probe.images.includes(i)));
    const local = defaultDockerHost();
    const sources = settings.some((s) => s.name === local.name) ? hosts : [...hosts, ...(await probeHosts([local]))];
    const report: { host: string; images: Awaited<ReturnType<typeof loadImagesOntoHost>>; error?: string }[] = [];
    for (const target of targets) {
      try {
        report.push({ host: target.setting.name, images: await loadImagesOntoHost(target, sources, images, log) });
      } catch (err) {
        report.push({ host: target.setting.name, images: [], error: (err as Error).message });
      }
    }
    if (values.json) printJson({ loaded: report });
    else if (!targets.length) process.stdout.write(`every host has ${images.join(", ")}\n`);
    else
      for (const r of report) {
        if (r.error) process.stdout.write(`${r.host}: ${r.error}\n`);
        else
          for (const i of r.images)
            process.stdout.write(`${r.host}: ${i.image} ${i.how}${i.from ? ` from ${i.from}` : ""}${i.ms ? ` (${(i.ms / 1000).toFixed(1)} s)` : ""}\n`);
      }
    return report.some((r) => r.error) ? 1 : 0;
  },
});

function parseImages(raw: string, known: readonly SandboxImage[]): SandboxImage[] {
  const list = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((i) => !known.includes(i as SandboxImage));
  if (!list.length || bad.length) throw new BadInputError(`must list images among ${known.join(", ")} (got ${JSON.stringify(raw)})`, "--image");
  return list as SandboxImage[];
}
