import "server-only";

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import { PassThrough, type Duplex } from "node:stream";

import Docker from "dockerode";

import { config } from "@/lib/config";
import { SandboxError, SandboxUnavailableError } from "@/lib/errors";
import { AgentClient } from "./agent-client";
import { AgentSandbox } from "./agent-sandbox";
import { AGENT_BOOTSTRAP } from "./agent-source";
import { checkSpec } from "./local";
import { takeForSpec, WarmPool } from "./pool";
import { resolveLimits, type Limits } from "./limits";
import type { SandboxBackend, SandboxImage, SandboxSpec } from "./types";

/** Every environment image the backend needs (`scripts/build-images.sh` builds them). */
export const SANDBOX_IMAGES: readonly SandboxImage[] = ["bash", "python", "sql", "ctf"];
/** The image a sandbox of `image` runs. */
export const imageTag = (image: SandboxImage): string => `intercode-studio/${image}:latest`;

const LABEL = "org.intercode-studio.sandbox";
const OWNER_LABEL = "org.intercode-studio.owner";
const START_TIMEOUT_MS = 30_000;
/** Where a whole-root file system's tmpfs is mounted before the agent pivots into it. */
const NEW_ROOT = "/.sandbox-root";
const AVAILABLE_CACHE_MS = 3_000;

/** Options of the docker backend (defaults from the environment). */
export interface DockerBackendOptions {
  /** Engine socket; default DOCKER_HOST's unix path or /var/run/docker.sock. */
  socketPath?: string;
  /** Started containers kept ready per (image, files, limits); default IC_DOCKER_POOL or 2. 0 disables the pool. */
  poolSize?: number;
}

function socketFromEnv(): string {
  const host = process.env.DOCKER_HOST;
  if (host?.startsWith("unix://")) return host.slice("unix://".length);
  return "/var/run/docker.sock";
}

function engineMessage(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { statusCode?: number; json?: { message?: string } };
  if (e?.code === "ENOENT" || e?.code === "ECONNREFUSED") return `the Docker engine does not answer (${e.code}); start it with: bash scripts/start-dockerd.sh`;
  return e?.json?.message ?? e?.message ?? String(err);
}

const tarCache = new Map<string, Buffer>();

/** The task's files as a tar (owner root, mtimes and .git kept), cached per directory. */
function tarOf(hostDir: string): Buffer {
  let tar = tarCache.get(hostDir);
  if (!tar) {
    const r = spawnSync("tar", ["-C", hostDir, "--owner=0", "--group=0", "--numeric-owner", "-cf", "-", "."], { maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new SandboxError(`could not pack ${hostDir} for the sandbox: ${r.stderr?.toString() ?? r.error}`);
    tar = r.stdout;
    tarCache.set(hostDir, tar);
  }
  return tar;
}

/** A container running the agent as PID 1; exec/spawn go through the agent on one attach stream. */
class DockerSandbox extends AgentSandbox {
  readonly backend = "docker" as const;

  constructor(
    id: string,
    limits: Limits,
    client: AgentClient,
    private readonly container: Docker.Container,
    private readonly stream: Duplex,
  ) {
    super(id, limits, client);
  }

  /** Unpacks a task's files at their mount point, once the sandbox has left the pool. */
  loadFiles(files: { hostDir: string; mountAt: string }): Promise<void> {
    return this.client.untar(files.mountAt, tarOf(files.hostDir));
  }

  hold(active: boolean): void {
    const socket = this.stream as Duplex & { ref?: () => void; unref?: () => void };
    if (active) socket.ref?.();
    else socket.unref?.();
  }

  /**
   * Stops the sandbox at once (its agent's stream is cut, so nothing more runs through it) and
   * removes the container in the background, so an episode's reset does not wait for the engine;
   * `removed` settles when the container is gone (the backend's shutdown waits for all of them).
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.client.markClosed("sandbox closed");
      this.stream.destroy();
      this.removed = this.container.remove({ force: true }).then(
        () => undefined,
        () => undefined,
      );
      this.onClose?.(this.removed);
      this.closing = Promise.resolve();
    }
    return this.closing;
  }

  removed: Promise<void> | null = null;
  /** Set by the backend to track background removals. */
  onClose?: (removed: Promise<void>) => void;
}

async function startContainer(docker: Docker, spec: SandboxSpec, limits: Limits): Promise<DockerSandbox> {
  const id = randomBytes(6).toString("hex");
  const workdir = spec.workdir ?? spec.files?.mountAt ?? "/";
  const tmpfs = (mode: string) => `rw,exec,nosuid,size=${limits.diskBytes},mode=${mode}`;
  // Task files at "/" (a whole-root file system) go into one size-capped tmpfs that the agent
  // makes the root before anything runs (the container's own writable layer has no size cap);
  // /tmp, /root and the rest are directories on it, as in the local backend.
  const filesAtRoot = spec.files?.mountAt === "/";
  const mounts: Record<string, string> = filesAtRoot
    ? { [NEW_ROOT]: tmpfs("755") }
    : { "/tmp": tmpfs("1777"), "/var/tmp": tmpfs("1777"), "/root": tmpfs("700"), "/run": tmpfs("755") };
  if (spec.files && !filesAtRoot) mounts[spec.files.mountAt] = tmpfs("755");
  if (spec.workdir && !mounts[spec.workdir] && spec.workdir !== "/") mounts[spec.workdir] ??= tmpfs("755");
  let container: Docker.Container;
  try {
    container = await docker.createContainer({
      name: `ic-sandbox-${id}`,
      Image: imageTag(spec.image),
      Cmd: AGENT_BOOTSTRAP,
      Env: [],
      WorkingDir: workdir,
      Hostname: "sandbox",
      OpenStdin: true,
      StdinOnce: false,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      Labels: { [LABEL]: "1", [OWNER_LABEL]: `${os.hostname()}:${process.pid}` },
      HostConfig: {
        NetworkMode: "none",
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes,
        PidsLimit: limits.processes,
        ReadonlyRootfs: true,
        Tmpfs: mounts,
        CapDrop: ["ALL"],
        // Only to bind the system over the new root and switch into it; the agent drops these (and
        // every other capability, bounding set included) before the first command runs.
        ...(filesAtRoot ? { CapAdd: ["SYS_ADMIN", "SYS_CHROOT", "SETPCAP"] } : {}),
        SecurityOpt: ["no-new-privileges"],
        IpcMode: "private",
      },
    });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) {
      throw new SandboxUnavailableError(`image ${imageTag(spec.image)} is missing: build it with bash scripts/build-images.sh`);
    }
    throw new SandboxError(`could not create a docker sandbox: ${engineMessage(err)}`, undefined, { cause: err });
  }
  let stream: Duplex | undefined;
  try {
    stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex;
    const out = new PassThrough();
    const errOut = new PassThrough();
    let agentStderr = "";
    errOut.on("data", (d: Buffer) => {
      if (agentStderr.length < 4096) agentStderr += d.toString("utf8");
    });
    docker.modem.demuxStream(stream, out, errOut);
    const closeListeners: ((reason: string) => void)[] = [];
    const closed = (why: string) => {
      for (const l of closeListeners.splice(0)) l(`${why}${agentStderr ? `: ${agentStderr.trim()}` : ""}`);
    };
    stream.on("end", () => closed("the container or the Docker engine stopped"));
    stream.on("close", () => closed("the container or the Docker engine stopped"));
    stream.on("error", (err) => closed(`the connection to the Docker engine failed (${err.message})`));
    const s = stream;
    const client = new AgentClient(
      {
        write: (data) => {
          s.write(data);
        },
        onData: (listener) => out.on("data", listener),
        onClose: (listener) => closeListeners.push(listener),
      },
      limits,
      { workdir, label: `docker sandbox ${id}` },
    );
    await container.start();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.ready,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new SandboxError(`docker sandbox ${id} did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    // Files elsewhere (a CTF task's /ctf) go in after the sandbox leaves the pool (see create), so
    // one pool serves every task of an image; a whole root has to be in place before the pivot.
    if (spec.files && filesAtRoot) {
      await client.untar(NEW_ROOT, tarOf(spec.files.hostDir));
      await client.pivotRoot(NEW_ROOT);
    }
    return new DockerSandbox(id, limits, client, container, stream);
  } catch (err) {
    stream?.destroy();
    await container.remove({ force: true }).catch(() => undefined);
    if (err instanceof SandboxError || err instanceof SandboxUnavailableError) throw err;
    throw new SandboxError(`could not start a docker sandbox: ${engineMessage(err)}`, undefined, { cause: err });
  }
}

/** Removes containers a dead process on this host left behind (it was killed before close()). */
async function removeOrphans(docker: Docker): Promise<void> {
  const list = await docker.listContainers({ all: true, filters: { label: [LABEL] } });
  const me = os.hostname();
  for (const c of list) {
    const [host, pid] = (c.Labels[OWNER_LABEL] ?? "").split(":");
    if (host !== me || !pid) continue;
    let alive = true;
    try {
      process.kill(Number(pid), 0);
    } catch {
      alive = false;
    }
    if (!alive) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  }
}

/** The Docker backend: one container per sandbox, a warm pool of started ones per (image, whole-root file system, limits); see poolKey. */
export function createDockerBackend(options: DockerBackendOptions = {}): SandboxBackend {
  const docker = new Docker({ socketPath: options.socketPath ?? socketFromEnv() });
  const poolSize = options.poolSize ?? config().dockerPool;
  const pool = new WarmPool<DockerSandbox>(poolSize);
  let cached: { at: number; result: { ok: true } | { ok: false; reason: string } } | null = null;
  let orphansChecked = false;
  const removals = new Set<Promise<void>>();

  async function available(): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (cached && Date.now() - cached.at < AVAILABLE_CACHE_MS) return cached.result;
    let result: { ok: true } | { ok: false; reason: string };
    try {
      await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("ping timed out after 3 s"), { code: "ETIMEDOUT" })), 3000).unref())]);
      const images = await docker.listImages({ filters: { reference: ["intercode-studio/*"] } });
      const tags = new Set(images.flatMap((i) => i.RepoTags ?? []));
      const missing = SANDBOX_IMAGES.filter((i) => !tags.has(imageTag(i)));
      result = missing.length ? { ok: false, reason: `images missing (${missing.map(imageTag).join(", ")}): build them with bash scripts/build-images.sh` } : { ok: true };
      if (!orphansChecked) {
        orphansChecked = true;
        await removeOrphans(docker).catch(() => undefined);
      }
    } catch (err) {
      result = { ok: false, reason: engineMessage(err) };
    }
    if (!result.ok) pool.forget();
    cached = { at: Date.now(), result };
    return result;
  }

  return {
    kind: "docker",
    available,
    async create(spec) {
      checkSpec(spec);
      const limits = resolveLimits(spec.limits);
      try {
        return await takeForSpec(pool, spec, limits, async () => {
          const sandbox = await startContainer(docker, spec, limits);
          sandbox.onClose = (removed) => {
            removals.add(removed);
            void removed.finally(() => removals.delete(removed));
          };
          return sandbox;
        });
      } catch (err) {
        cached = null;
        const a = await available();
        if (!a.ok) throw new SandboxError(`docker sandbox unavailable: ${a.reason}`, undefined, { cause: err });
        throw err;
      }
    },
    async shutdown() {
      await pool.drain();
      await Promise.all([...removals]);
    },
  };
}
