/**
 * InterCode Studio's one process: Next.js (pages and API routes) and the playground websocket
 * (`/ws`) on one port, behind a single access check (lib/http/studio-server.ts).
 *
 *   node --import tsx --import ./scripts/hooks.mjs server.ts [--dev]
 *
 * Environment: IC_HOST (127.0.0.1), IC_PORT (3000), IC_TOKEN (required off loopback, 32+ characters),
 * IC_ALLOWED_HOSTS (Host names a proxy forwards),
 * IC_IDLE_MS, IC_MAX_SANDBOXES, IC_SANDBOX (auto|local|docker), IC_DOCKER_HOSTS, IC_DB, IC_TIMEOUT_MS.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { config as readConfig } from "@/lib/config";
import { asStudioError } from "@/lib/errors";
import { checkDockerHosts } from "@/lib/sandbox/docker-hosts";
import { assertSafeBind } from "@/lib/http/auth";
import { createStudioServer } from "@/lib/http/studio-server";
import { prepareStore, createLiveEpisodeManager } from "@/lib/live/wiring";

async function main(): Promise<void> {
  const dev = process.argv.includes("--dev");
  const config = readConfig();
  assertSafeBind(config.host, config.token);
  // Docker hosts that do not answer are refused now, not at the first episode (unless sandboxes are local).
  if (config.backend !== "local") await checkDockerHosts(config.dockerHosts);

  const interrupted = await prepareStore();
  if (interrupted > 0) console.log(`> marked ${interrupted} episode(s) interrupted (they resume by replay)`);

  const dir = path.dirname(fileURLToPath(import.meta.url));
  const app = next({ dev, dir, hostname: config.host, port: config.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const upgrade = app.getUpgradeHandler();

  const manager = createLiveEpisodeManager(config);
  const { server } = createStudioServer({
    token: config.token,
    hosts: { bindHost: config.host, allowedHosts: config.allowedHosts },
    dev,
    manager,
    handle: (req, res) => handle(req, res),
    upgrade: dev ? (req, socket, head) => upgrade(req, socket, head) : undefined,
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : config.port;
  const shownHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  console.log(`> InterCode Studio ready on http://${shownHost}:${port}${dev ? " (dev)" : ""}${config.token ? " (token required)" : ""}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`> ${signal}: closing sandboxes`);
    // Batch runs stop cleanly: finished episodes stay, running ones are marked interrupted.
    const { stopAllRuns } = await import("@/lib/runs/run-manager");
    await Promise.all([manager.shutdown(), stopAllRuns()]);
    // The warm pools' sandboxes too: each holds a tmpfs mount and a cgroup until closed.
    const { shutdownSandboxBackends } = await import("@/lib/sandbox");
    await shutdownSandboxBackends().catch((err) => console.error(`> closing sandbox pools: ${(err as Error).message}`));
    server.close();
    server.closeAllConnections();
    await app.close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err) => {
  const e = asStudioError(err);
  console.error(`intercode studio: cannot start: ${e.message}`);
  if (e.code === "internal") console.error(err);
  process.exit(1);
});
