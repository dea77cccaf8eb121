import "server-only";

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import { PassThrough, type Duplex } from "node:stream";

import type Docker from "dockerode";

import { config, type DockerHostSetting } from "@/lib/config";
import { LimitReachedError, SandboxError, SandboxUnavailableError } from "@/lib/errors";
import { SANDBOX_HOSTNAME, SANDBOX_HOSTNAME_ADDRESS, SupervisorClient } from "./supervisor-client";
import { SupervisorSandbox } from "./supervisor-sandbox";
import { SUPERVISOR_BOOTSTRAP } from "./supervisor-source";
import {
  connectDocker,
  defaultDockerHost,
  engineMessage,
  imageTag,
  OWNER,
  OWNER_LABEL,
  probeHost,
  SANDBOX_IMAGES,
  SANDBOX_LABEL,
  type HostProbe,
} from "./docker-hosts";
import { checkSpec } from "./local";
import { takeForSpec, TASK_TAR_ARGS, WarmPool } from "./pool";
import { resolveLimits, type Limits } from "./limits";
import type { SandboxBackend, SandboxImage, SandboxSpec } from "./types";

const START_TIMEOUT_MS = 30_000;
/** Where a whole-root file system's tmpfs is mounted before the supervisor pivots into it. */
const NEW_ROOT = "/.sandbox-root";
const AVAILABLE_CACHE_MS = 3_000;
/** How long a host's probe (images, other processes' sandboxes) is trusted when placing sandboxes. */
const PROBE_CACHE_MS = 3_000;
/** How long a host that stopped answering is left alone before it is tried again. */
const DOWN_RETRY_MS = 10_000;

/** One host as the backend last saw it (placement's view; `free` = max - inUse - others). */
export interface HostView {
  name: string;
  up: boolean;
  max: number;
  /** This process's sandboxes in use by episodes. */
  inUse: number;
  /** Other processes' running sandboxes at the last probe. */
  others: number;
  free: number;
  images: SandboxImage[];
}

/** The docker backend, which also tells where its sandboxes can go. */
export interface DockerBackend extends SandboxBackend {
  readonly kind: "docker";
  hosts(): HostView[];
}

/** Options of the docker backend (defaults from the environment). */
export interface DockerBackendOptions {
  /** Engine socket of the single-engine backend; default DOCKER_HOST's unix path or /var/run/docker.sock. */
  socketPath?: string;
  /** Started containers kept ready per (host, image, files, limits); default IC_DOCKER_POOL or 2. 0 disables the pool. */
  poolSize?: number;
  /** The engines to place sandboxes on; default IC_DOCKER_HOSTS, else the single engine of `socketPath`. */
  hosts?: DockerHostSetting[];
}

const tarCache = new Map<string, Buffer>();

/** The task's files as a tar (TASK_TAR_ARGS; owner root, both times and .git kept), cached per directory. */
function tarOf(hostDir: string): Buffer {
  let tar = tarCache.get(hostDir);
  if (!tar) {
    const r = spawnSync("tar", ["-C", hostDir, ...TASK_TAR_ARGS, "--owner=0", "--group=0", "--numeric-owner", "-cf", "-", "."], { maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new SandboxError(`could not pack ${hostDir} for the sandbox: ${r.stderr?.toString() ?? r.error}`);
    tar = r.stdout;
    tarCache.set(hostDir, tar);
  }
  return tar;
}

/** A container running the supervisor as PID 1; exec/spawn go through the supervisor on one attach stream. */
class DockerSandbox extends SupervisorSandbox {
  readonly backend = "docker" as const;

  constructor(
    id: string,
    limits: Limits,
    client: SupervisorClient,
    private readonly container: Docker.Container,
    private readonly stream: Duplex,
    /** The engine it runs on (IC_DOCKER_HOSTS name). */
    readonly host: string,
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
   * Stops the sandbox at once (its supervisor's stream is cut, so nothing more runs through it) and
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
      this.onRelease?.();
    }
    return this.closing;
  }

  removed: Promise<void> | null = null;
  /** Set by the backend to track background removals. */
  onClose?: (removed: Promise<void>) => void;
  /** Whether close() has been called (a stream that ends after it is no sign of a lost engine). */
  get isClosing(): boolean {
    return this.closing !== null;
  }

  /** Set by the backend when the sandbox leaves the pool: frees its slot on the host, once, at close. */
  onRelease?: () => void;
}

/** Where a container starts: the engine, its name in messages, and whom to tell when its stream breaks without close(). */
interface StartOn {
  docker: Docker;
  host: string;
  /** Names the host in every error of the sandbox (IC_DOCKER_HOSTS); off for the single default engine, whose messages stay as they were. */
  named: boolean;
  onLost: () => void;
}

async function startContainer(on: StartOn, spec: SandboxSpec, limits: Limits): Promise<DockerSandbox> {
  const { docker } = on;
  const id = randomBytes(6).toString("hex");
  const label = on.named ? `docker sandbox ${id} on ${on.host}` : `docker sandbox ${id}`;
  const workdir = spec.workdir ?? spec.files?.mountAt ?? "/";
  const tmpfs = (mode: string) => `rw,exec,nosuid,size=${limits.diskBytes},mode=${mode}`;
  // Task files at "/" (a whole-root file system) go into one size-capped tmpfs that the supervisor
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
      Cmd: SUPERVISOR_BOOTSTRAP,
      Env: [],
      WorkingDir: workdir,
      Hostname: SANDBOX_HOSTNAME,
      OpenStdin: true,
      StdinOnce: false,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      Labels: { [SANDBOX_LABEL]: "1", [OWNER_LABEL]: OWNER },
      HostConfig: {
        NetworkMode: "none",
        // Its name resolves, as in a networked container (see ETC_HOSTS); no network comes with it.
        ExtraHosts: [`${SANDBOX_HOSTNAME}:${SANDBOX_HOSTNAME_ADDRESS}`],
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes,
        PidsLimit: limits.processes,
        ReadonlyRootfs: true,
        Tmpfs: mounts,
        CapDrop: ["ALL"],
        // Only to bind the system over the new root and switch into it; the supervisor drops these (and
        // every other capability, bounding set included) before the first command runs.
        ...(filesAtRoot ? { CapAdd: ["SYS_ADMIN", "SYS_CHROOT", "SETPCAP"] } : {}),
        SecurityOpt: ["no-new-privileges"],
        IpcMode: "private",
      },
    });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) {
      throw new SandboxUnavailableError(
        `image ${imageTag(spec.image)} is missing${on.named ? ` on ${on.host}` : ""}: build it with bash scripts/build-images.sh${on.named ? ` or load it with icstudio hosts --load ${on.host}` : ""}`,
      );
    }
    throw new SandboxError(`could not create a docker sandbox${on.named ? ` on ${on.host}` : ""}: ${engineMessage(err, !on.named)}`, undefined, { cause: err });
  }
  let stream: Duplex | undefined;
  try {
    stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex;
    const out = new PassThrough();
    const errOut = new PassThrough();
    let supervisorStderr = "";
    errOut.on("data", (d: Buffer) => {
      if (supervisorStderr.length < 4096) supervisorStderr += d.toString("utf8");
    });
    docker.modem.demuxStream(stream, out, errOut);
    const closeListeners: ((reason: string) => void)[] = [];
    let sandbox: DockerSandbox | null = null;
    const closed = (why: string) => {
      if (closeListeners.length && !sandbox?.isClosing) on.onLost();
      for (const l of closeListeners.splice(0)) l(`${why}${supervisorStderr ? `: ${supervisorStderr.trim()}` : ""}`);
    };
    stream.on("end", () => closed("the container or the Docker engine stopped"));
    stream.on("close", () => closed("the container or the Docker engine stopped"));
    stream.on("error", (err) => closed(`the connection to the Docker engine failed (${err.message})`));
    const s = stream;
    const client = new SupervisorClient(
      {
        write: (data) => {
          s.write(data);
        },
        onData: (listener) => out.on("data", listener),
        onClose: (listener) => closeListeners.push(listener),
      },
      limits,
      { workdir, label },
    );
    await container.start();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.ready,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new SandboxError(`${label} did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
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
    sandbox = new DockerSandbox(id, limits, client, container, stream, on.host);
    return sandbox;
  } catch (err) {
    stream?.destroy();
    await container.remove({ force: true }).catch(() => undefined);
    if (err instanceof SandboxError || err instanceof SandboxUnavailableError) throw err;
    throw new SandboxError(`could not start a docker sandbox${on.named ? ` on ${on.host}` : ""}: ${engineMessage(err, !on.named)}`, undefined, { cause: err });
  }
}

/** Removes containers a dead process on this host left behind (it was killed before close()). */
async function removeOrphans(docker: Docker): Promise<void> {
  const list = await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL] } });
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
    if (!alive)
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

/** One engine as the backend sees it: its client, its warm pool, the sandboxes it holds for episodes, and its last probe. */
class Host {
  readonly docker: Docker;
  readonly pool: WarmPool<DockerSandbox>;
  /** Sandboxes of this process in use by episodes (taken from the pool, not yet closed). */
  inUse = 0;
  probe: HostProbe | null = null;
  probedAt = 0;
  private probing: Promise<HostProbe> | null = null;
  private orphansChecked = false;

  constructor(
    readonly setting: DockerHostSetting,
    poolSize: number,
    /** The one default engine: its errors say how to start it. */
    private readonly local: boolean,
  ) {
    this.docker = connectDocker(setting);
    this.pool = new WarmPool<DockerSandbox>(poolSize);
  }

  get name(): string {
    return this.setting.name;
  }

  get up(): boolean {
    return this.probe?.up === true;
  }

  /** Slots left under the host's cap: its cap less this process's sandboxes in use and other processes' sandboxes (as last probed). */
  free(): number {
    const others = this.probe?.up ? this.probe.sandboxes.others : 0;
    return this.setting.max - this.inUse - others;
  }

  has(image: SandboxImage): boolean {
    return this.probe?.up === true && this.probe.images.includes(image);
  }

  /** Whether the last probe is too old to place by: an answering host after PROBE_CACHE_MS, a silent one after DOWN_RETRY_MS. */
  stale(now: number): boolean {
    return !this.probe || now - this.probedAt > (this.probe.up ? PROBE_CACHE_MS : DOWN_RETRY_MS);
  }

  /** Probes the engine (one probe at a time); a host found down loses its warm pool, whose containers went with it. */
  refresh(): Promise<HostProbe> {
    this.probing ??= probeHost(this.docker, this.local)
      .then(async (p) => {
        this.probe = p;
        this.probedAt = Date.now();
        if (!p.up) this.pool.forget();
        else if (!this.orphansChecked) {
          this.orphansChecked = true;
          await removeOrphans(this.docker).catch(() => undefined);
        }
        return p;
      })
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }

  /** Why no sandbox of `image` can go here now. */
  why(image: SandboxImage): string {
    if (!this.probe) return "not probed";
    if (!this.probe.up) return `down (${this.probe.reason})`;
    if (!this.has(image)) return `lacks ${imageTag(image)} (icstudio hosts --load ${this.name})`;
    return `at its cap (${this.setting.max - this.free()}/${this.setting.max} live)`;
  }
}

/**
 * The Docker backend: one container per sandbox, a warm pool of started ones per host and (image,
 * whole-root file system, limits); see poolKey.
 *
 * With one engine (IC_DOCKER_HOSTS unset) a sandbox goes to it and its errors read as they always
 * did. With IC_DOCKER_HOSTS, each new sandbox goes to the answering host with the most free slots
 * that has its image (ties: the first listed); a host whose engine stops answering (a probe fails,
 * or a sandbox's stream breaks and the probe that follows fails) is marked down, its episodes end
 * with errors naming it, and it is tried again after DOWN_RETRY_MS while the others take the work.
 */
export function createDockerBackend(options: DockerBackendOptions = {}): DockerBackend {
  const configured = options.hosts ?? (options.socketPath ? null : config().dockerHosts);
  const named = configured !== null;
  const poolSize = options.poolSize ?? config().dockerPool;
  const hosts = (configured ?? [defaultDockerHost(options.socketPath)]).map((h) => new Host(h, poolSize, !named));
  const removals = new Set<Promise<void>>();
  let cached: { at: number; result: { ok: true } | { ok: false; reason: string } } | null = null;

  const start = (host: Host, spec: SandboxSpec, limits: Limits) => async () => {
    const sandbox = await startContainer(
      {
        docker: host.docker,
        host: host.name,
        named,
        // A broken stream may be the engine going away: look now, so new sandboxes go elsewhere at once.
        onLost: () => void host.refresh(),
      },
      spec,
      limits,
    );
    sandbox.onClose = (removed) => {
      removals.add(removed);
      void removed.finally(() => removals.delete(removed));
    };
    return sandbox;
  };

  /** Takes a sandbox on `host`, counting it against the host's cap until it is closed. */
  async function takeOn(host: Host, spec: SandboxSpec, limits: Limits): Promise<DockerSandbox> {
    host.inUse++;
    let sandbox: DockerSandbox;
    try {
      sandbox = await takeForSpec(host.pool, spec, limits, start(host, spec, limits));
    } catch (err) {
      host.inUse--;
      throw err;
    }
    let released = false;
    sandbox.onRelease = () => {
      if (!released) host.inUse--;
      released = true;
    };
    return sandbox;
  }

  async function availableSingle(): Promise<{ ok: true } | { ok: false; reason: string }> {
    const p = await hosts[0]!.refresh();
    if (!p.up) return { ok: false, reason: p.reason };
    const missing = SANDBOX_IMAGES.filter((i) => !p.images.includes(i));
    return missing.length
      ? { ok: false, reason: `images missing (${missing.map(imageTag).join(", ")}): build them with bash scripts/build-images.sh` }
      : { ok: true };
  }

  /** Ready when every image is on some answering host. */
  async function availableMany(): Promise<{ ok: true } | { ok: false; reason: string }> {
    await Promise.all(hosts.map((h) => h.refresh()));
    const missing = SANDBOX_IMAGES.filter((i) => !hosts.some((h) => h.has(i)));
    if (!missing.length) return { ok: true };
    const state = hosts.map(
      (h) =>
        `${h.name}: ${h.probe?.up ? `has ${h.probe.images.join(", ") || "no Studio image"}` : `down (${h.probe?.up === false ? h.probe.reason : "not probed"})`}`,
    );
    return { ok: false, reason: `no answering Docker host (IC_DOCKER_HOSTS) has ${missing.map(imageTag).join(", ")}: ${state.join("; ")}` };
  }

  async function available(): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (cached && Date.now() - cached.at < AVAILABLE_CACHE_MS) return cached.result;
    const result = named ? await availableMany() : await availableSingle();
    cached = { at: Date.now(), result };
    return result;
  }

  /** The host for a new sandbox of `image` among those not yet tried: most free slots, has the image, answers. */
  async function place(image: SandboxImage, tried: Set<Host>): Promise<Host> {
    const now = Date.now();
    const open = hosts.filter((h) => !tried.has(h));
    await Promise.all(open.filter((h) => h.stale(now)).map((h) => h.refresh()));
    const fits = open.filter((h) => h.has(image));
    const best = fits.filter((h) => h.free() > 0).sort((a, b) => b.free() - a.free())[0];
    if (best) return best;
    const why = hosts.map((h) => `${h.name} ${tried.has(h) ? "failed just now" : h.why(image)}`).join("; ");
    if (fits.length)
      throw new LimitReachedError(`every Docker host with ${imageTag(image)} is at its cap of live sandboxes (IC_DOCKER_HOSTS #max=): ${why}`, {
        hosts: hosts.map((h) => h.name),
      });
    throw new SandboxError(`docker sandbox unavailable: no Docker host can start a ${image} sandbox now: ${why}`, { hosts: hosts.map((h) => h.name) });
  }

  async function createOnMany(spec: SandboxSpec, limits: Limits): Promise<DockerSandbox> {
    const tried = new Set<Host>();
    for (;;) {
      const host = await place(spec.image, tried);
      tried.add(host);
      try {
        return await takeOn(host, spec, limits);
      } catch (err) {
        // Another host may serve it when this one's engine is the trouble; a sandbox that failed on a healthy host is reported as is.
        const p = await host.refresh();
        cached = null;
        if (p.up && p.images.includes(spec.image)) throw err;
      }
    }
  }

  return {
    kind: "docker",
    available,
    async create(spec) {
      checkSpec(spec);
      const limits = resolveLimits(spec.limits);
      if (named) return createOnMany(spec, limits);
      try {
        return await takeOn(hosts[0]!, spec, limits);
      } catch (err) {
        cached = null;
        const a = await available();
        if (!a.ok) throw new SandboxError(`docker sandbox unavailable: ${a.reason}`, undefined, { cause: err });
        throw err;
      }
    },
    hosts: () =>
      hosts.map((h) => ({
        name: h.name,
        up: h.up,
        max: h.setting.max,
        inUse: h.inUse,
        others: h.probe?.up ? h.probe.sandboxes.others : 0,
        free: h.free(),
        images: h.probe?.up ? h.probe.images : [],
      })),
    async shutdown() {
      await Promise.all(hosts.map((h) => h.pool.drain()));
      await Promise.all([...removals]);
    },
  };
}

/** Where a docker sandbox runs (its host's IC_DOCKER_HOSTS name), or null for another backend's sandbox. */
export function sandboxHost(sandbox: unknown): string | null {
  return sandbox instanceof DockerSandbox ? sandbox.host : null;
}
