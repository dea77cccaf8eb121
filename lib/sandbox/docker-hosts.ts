import "server-only";

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import Docker from "dockerode";

import { config, type DockerHostSetting } from "@/lib/config";
import { BadInputError } from "@/lib/errors";
import { SANDBOX_IMAGE_NAMES, type SandboxImage } from "./types";

/**
 * The Docker engines sandboxes run on (IC_DOCKER_HOSTS, else the one local engine): how to reach
 * one, and what it can do right now (a probe: answers or not, which Studio images it has, how many
 * Studio sandboxes run on it). The docker backend (docker.ts) places sandboxes with this;
 * `icstudio hosts` lists it and fills a host's missing images (host-images.ts).
 */

/** Every environment image the backend needs (`scripts/build-images.sh` builds them). */
export const SANDBOX_IMAGES: readonly SandboxImage[] = SANDBOX_IMAGE_NAMES;
/** The image a sandbox of `image` runs. */
export const imageTag = (image: SandboxImage): string => `intercode-studio/${image}:latest`;

/**
 * How each image is built: its Dockerfile in docker/ and the local base image under it (made by
 * docker/build-base-image.sh <suite>). scripts/build-images.sh follows the same table.
 */
export const IMAGE_BUILDS: Record<SandboxImage, { dockerfile: string; base: string }> = {
  bash: { dockerfile: "Dockerfile.bash", base: "intercode-studio/base:bookworm" },
  "bash-intercode": { dockerfile: "Dockerfile.bash", base: "intercode-studio/base:bullseye" },
  python: { dockerfile: "Dockerfile.python", base: "intercode-studio/base:bookworm" },
  sql: { dockerfile: "Dockerfile.sql", base: "intercode-studio/base:bookworm" },
  ctf: { dockerfile: "Dockerfile.ctf", base: "intercode-studio/base:bookworm" },
};

/** Labels on every sandbox container: that it is one, and which process (host:pid) owns it. */
export const SANDBOX_LABEL = "org.intercode-studio.sandbox";
export const OWNER_LABEL = "org.intercode-studio.owner";
/** This process as an owner label value. */
export const OWNER = `${os.hostname()}:${process.pid}`;

/** How long an engine has to answer a ping before it counts as not answering. */
export const PING_TIMEOUT_MS = 3_000;

/** The one engine used when IC_DOCKER_HOSTS is unset: DOCKER_HOST's unix socket, else /var/run/docker.sock. */
export function defaultDockerHost(socketPath?: string): DockerHostSetting {
  const fromEnv = process.env.DOCKER_HOST?.startsWith("unix://") ? process.env.DOCKER_HOST.slice("unix://".length) : null;
  const p = socketPath ?? fromEnv ?? "/var/run/docker.sock";
  return { kind: "unix", name: `unix://${p}`, socketPath: p, max: Number.POSITIVE_INFINITY };
}

/** IC_DOCKER_HOSTS, or the one default engine. */
export function configuredDockerHosts(): DockerHostSetting[] {
  return config().dockerHosts ?? [defaultDockerHost()];
}

/** A dockerode client for one host (TLS files and SSH key read here). */
export function connectDocker(host: DockerHostSetting): Docker {
  switch (host.kind) {
    case "unix":
      return new Docker({ socketPath: host.socketPath });
    case "tcp":
      if (!host.tlsDir) return new Docker({ protocol: "http", host: host.host, port: host.port });
      return new Docker({
        protocol: "https",
        host: host.host,
        port: host.port,
        ca: fs.readFileSync(path.join(host.tlsDir, "ca.pem")),
        cert: fs.readFileSync(path.join(host.tlsDir, "cert.pem")),
        key: fs.readFileSync(path.join(host.tlsDir, "key.pem")),
      });
    case "ssh":
      return new Docker({
        protocol: "ssh",
        host: host.host,
        port: host.port,
        ...(host.username ? { username: host.username } : {}),
        sshOptions: host.keyFile ? { privateKey: fs.readFileSync(host.keyFile) } : { agent: process.env.SSH_AUTH_SOCK },
      } as Docker.DockerOptions);
  }
}

/** What an engine error means, in words (with how to start the engine when `local`: the one default engine). */
export function engineMessage(err: unknown, local = true): string {
  const e = err as NodeJS.ErrnoException & { statusCode?: number; json?: { message?: string } };
  if (e?.code === "ENOENT" || e?.code === "ECONNREFUSED")
    return `the Docker engine does not answer (${e.code})${local ? "; start it with: bash scripts/start-dockerd.sh" : ""}`;
  if (e?.code === "ETIMEDOUT") return `the Docker engine does not answer (${e.message})`;
  return e?.json?.message ?? e?.message ?? String(err);
}

/** `promise`, or a rejection with code ETIMEDOUT after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms / 1000} s`), { code: "ETIMEDOUT" })), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

/** One look at an engine. */
export type HostProbe =
  | {
      up: true;
      /** The Studio images it has. */
      images: SandboxImage[];
      /** Running Studio sandboxes on it: this process's, and every other process's. */
      sandboxes: { mine: number; others: number };
      /** Round trip of the ping. */
      pingMs: number;
    }
  | { up: false; reason: string };

/** Pings the engine (PING_TIMEOUT_MS), then lists its Studio images and sandbox containers. `local`: see engineMessage. */
export async function probeHost(docker: Docker, local = false): Promise<HostProbe> {
  try {
    const started = performance.now();
    await withTimeout(docker.ping(), PING_TIMEOUT_MS, "ping");
    const pingMs = performance.now() - started;
    const [images, containers] = await withTimeout(
      Promise.all([docker.listImages({ filters: { reference: ["intercode-studio/*"] } }), docker.listContainers({ filters: { label: [SANDBOX_LABEL] } })]),
      PING_TIMEOUT_MS * 2,
      "listing images and containers",
    );
    const tags = new Set(images.flatMap((i) => i.RepoTags ?? []));
    const mine = containers.filter((c) => c.Labels[OWNER_LABEL] === OWNER).length;
    return { up: true, images: SANDBOX_IMAGES.filter((i) => tags.has(imageTag(i))), sandboxes: { mine, others: containers.length - mine }, pingMs };
  } catch (err) {
    return { up: false, reason: engineMessage(err, local) };
  }
}

/**
 * Refuses hosts that do not answer, at start (server, CLI): a BadInputError naming each one and
 * why, after at most PING_TIMEOUT_MS (the hosts are pinged at once). Nothing to check when
 * IC_DOCKER_HOSTS is unset (the default engine's absence is reported where a sandbox is needed).
 */
export async function checkDockerHosts(hosts: DockerHostSetting[] | null = config().dockerHosts): Promise<void> {
  if (!hosts) return;
  const down = (
    await Promise.all(
      hosts.map(async (h) => {
        try {
          await withTimeout(connectDocker(h).ping(), PING_TIMEOUT_MS, "ping");
          return null;
        } catch (err) {
          const status = (err as { statusCode?: number }).statusCode;
          if (status) return `${h.name} answers, but not as a Docker engine (HTTP ${status} to a ping)`;
          const why = engineMessage(err, false);
          const silent = "the Docker engine does not answer";
          return why.startsWith(silent) ? `${h.name} does not answer${why.slice(silent.length)}` : `${h.name} does not answer: ${why}`;
        }
      }),
    )
  ).filter((m): m is string => m !== null);
  if (down.length) throw new BadInputError(`${down.join("; ")} (remove it from the list or start its engine)`, "IC_DOCKER_HOSTS");
}

/** Finds a host by its name (as listed by `icstudio hosts`) or 1-based position. */
export function findDockerHost(hosts: DockerHostSetting[], ref: string): DockerHostSetting {
  const byIndex = /^\d+$/.test(ref) ? hosts[Number(ref) - 1] : undefined;
  const found = byIndex ?? hosts.find((h) => h.name === ref || h.name === ref.replace(/[?#].*$/, ""));
  if (!found) throw new BadInputError(`no such host ${JSON.stringify(ref)} (hosts: ${hosts.map((h) => h.name).join(", ")})`, "--load HOST");
  return found;
}
