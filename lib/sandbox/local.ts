import "server-only";

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, promises as fsp, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { config } from "@/lib/config";
import { BadInputError, SandboxError, SandboxUnavailableError } from "@/lib/errors";
import { SupervisorClient, BASE_ENV, ETC_HOSTS, SANDBOX_HOSTNAME } from "./supervisor-client";
import { SupervisorSandbox } from "./supervisor-sandbox";
import { SUPERVISOR_BOOTSTRAP } from "./supervisor-source";
import { cgroupSupport, createSandboxCgroup, removeOrphanCgroups, type SandboxCgroup } from "./cgroup";
import { resolveLimits, type Limits } from "./limits";
import { filesAfterTake, takeForSpec, TASK_TAR_ARGS, WarmPool } from "./pool";
import { SANDBOX_IMAGE_NAMES, type SandboxBackend, type SandboxSpec } from "./types";

const START_TIMEOUT_MS = 15_000;

/** /etc files the sandbox may see (no secrets: no shadow, no host passwd, no ssh, no machine-id; its own hosts, as docker writes it). */
const ETC_FILES = [
  "networks",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "localtime",
  "nsswitch.conf",
  "magic",
  "magic.mime",
  "mime.types",
  "bash.bashrc",
  "inputrc",
  "profile",
];
/** Top-level system directories shared read-only (or as the symlinks they are on merged-/usr hosts). */
const SYSTEM_DIRS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];
/** Mount points the task's files may not replace. */
const RESERVED = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/proc", "/dev", "/tmp", "/root"];

const PASSWD = "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
const GROUP = "root:x:0:\nnogroup:x:65534:\n";
const GITCONFIG = "[safe]\n\tdirectory = *\n[user]\n\temail = sandbox@intercode.local\n\tname = sandbox\n";

/**
 * Checks `spec.files.mountAt` / `workdir`: absolute, normalised, not a system directory.
 * "/" is allowed: the task's files are then a whole root (bash file systems keep their git
 * repository at /) and the system directories are laid over them read-only.
 */
export function checkMountPoint(mountAt: string, where: string): void {
  if (mountAt === "/") return;
  if (!path.isAbsolute(mountAt) || path.normalize(mountAt) !== mountAt || mountAt.endsWith("/")) {
    throw new BadInputError(`must be an absolute, normalised path, got ${JSON.stringify(mountAt)}`, where);
  }
  if (RESERVED.includes(mountAt) || mountAt.startsWith("/proc/") || mountAt.startsWith("/dev/") || mountAt.startsWith("/usr/")) {
    throw new BadInputError(`${mountAt} is a system directory and cannot hold task files`, where);
  }
}

/** Checks a spec's task files and workdir before anything is started; bad ones get BadInputError naming the field. */
export function checkSpec(spec: SandboxSpec): void {
  if (!(SANDBOX_IMAGE_NAMES as readonly string[]).includes(spec.image))
    throw new BadInputError(`unknown image ${JSON.stringify(spec.image)}`, "sandbox spec image");
  if (spec.workdir !== undefined && !path.isAbsolute(spec.workdir))
    throw new BadInputError(`must be an absolute path, got ${JSON.stringify(spec.workdir)}`, "sandbox spec workdir");
  if (spec.files) {
    checkMountPoint(spec.files.mountAt, "sandbox spec files.mountAt");
    let st;
    try {
      st = statSync(spec.files.hostDir);
    } catch {
      throw new BadInputError(`directory ${spec.files.hostDir} does not exist`, "sandbox spec files.hostDir");
    }
    if (!st.isDirectory()) throw new BadInputError(`${spec.files.hostDir} is not a directory`, "sandbox spec files.hostDir");
  }
}

/** Runs a helper program without blocking the event loop (a server shares it with other sessions). */
function run(cmd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    let out = "";
    const p = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    p.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    p.stderr.on("data", (d: Buffer) => (out += d.toString("utf8")));
    p.on("error", (err) => resolve({ ok: false, out: `${out}${String(err)}`.trim() }));
    p.on("close", (code) => resolve({ ok: code === 0, out: out.trim() }));
  });
}

function bwrapArgs(root: string, spec: SandboxSpec, limits: Limits): string[] {
  const a = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL", "--clearenv"];
  for (const [k, v] of Object.entries(BASE_ENV)) a.push("--setenv", k, v);
  a.push("--hostname", SANDBOX_HOSTNAME);
  const filesAtRoot = spec.files?.mountAt === "/";
  // A whole-root file system goes first so that the system directories below lie over it.
  if (filesAtRoot) a.push("--bind", path.join(root, "files"), "/");
  a.push("--ro-bind", "/usr", "/usr");
  // /usr/local holds host-installed tools (docker, node...): not part of the environment.
  if (existsSync("/usr/local")) a.push("--tmpfs", "/usr/local", "--remount-ro", "/usr/local");
  for (const d of SYSTEM_DIRS) {
    const p = `/${d}`;
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) a.push("--symlink", readlinkSync(p), p);
    else if (st.isDirectory()) a.push("--ro-bind", p, p);
  }
  // Over a whole-root file system /etc is a tmpfs of its own, made read-only once filled, as the
  // rest of /etc is read-only where the root is (and in the docker backend).
  a.push(filesAtRoot ? "--tmpfs" : "--dir", "/etc");
  for (const f of ETC_FILES) if (existsSync(`/etc/${f}`)) a.push("--ro-bind", `/etc/${f}`, `/etc/${f}`);
  for (const f of readdirSync("/etc")) if (/^python3(\.\d+)?$/.test(f)) a.push("--ro-bind", `/etc/${f}`, `/etc/${f}`);
  for (const f of ["passwd", "group", "gitconfig", "hostname", "hosts"]) a.push("--ro-bind", path.join(root, "etc", f), `/etc/${f}`);
  if (filesAtRoot) a.push("--remount-ro", "/etc");
  // /dev is bwrap's own tmpfs: read-only, with a small private /dev/shm (device nodes stay usable).
  a.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(Math.min(limits.diskBytes, 64 * 1024 * 1024)),
    "--perms",
    "1777",
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
  );
  a.push("--bind", path.join(root, "tmp"), "/tmp");
  // A whole-root file system brings its own writable /root (fs3 keeps task files there).
  if (!(filesAtRoot && existsSync(path.join(root, "files", "root")))) a.push("--bind", path.join(root, "home"), "/root");
  if (spec.files && !filesAtRoot) a.push("--bind", path.join(root, "files"), spec.files.mountAt);
  a.push("--bind", path.join(root, "vartmp"), "/var/tmp", "--dir", "/run");
  const workdir = spec.workdir ?? spec.files?.mountAt ?? "/";
  const writable = ["/tmp", "/root", spec.files?.mountAt].filter(Boolean) as string[];
  if (!writable.some((w) => workdir === w || workdir.startsWith(`${w}/`))) a.push("--dir", workdir);
  if (!filesAtRoot) a.push("--remount-ro", "/");
  a.push("--chdir", spec.files ? spec.files.mountAt : "/");
  return [...a, "--", ...SUPERVISOR_BOOTSTRAP];
}

/** A bubblewrap sandbox: one bwrap per sandbox running the supervisor as PID 1 of a new PID namespace. */
class LocalSandbox extends SupervisorSandbox {
  readonly backend = "local" as const;

  constructor(
    id: string,
    limits: Limits,
    private readonly child: ChildProcess,
    client: SupervisorClient,
    private readonly root: string,
    private readonly mounted: boolean,
    private readonly cgroup: SandboxCgroup | null,
  ) {
    super(id, limits, client);
  }

  /** Puts a task's files in (they appear at its mount point), once the sandbox has left the pool. */
  loadFiles(files: { hostDir: string }): Promise<void> {
    return copyFiles(files.hostDir, this.root);
  }

  hold(active: boolean): void {
    for (const h of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as ({ ref?: () => void; unref?: () => void } | null)[]) {
      if (active) h?.ref?.();
      else h?.unref?.();
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.hold(true); // waiting for the exit below must keep the process alive
      this.client.markClosed("sandbox closed");
      const exited = new Promise<void>((r) => (this.child.exitCode !== null || this.child.signalCode !== null ? r() : this.child.once("exit", () => r())));
      this.child.kill("SIGKILL");
      await exited;
      await this.cgroup?.destroy();
      if (this.mounted) await run("umount", ["-l", this.root]);
      rmSync(this.root, { recursive: true, force: true });
    })();
    return this.closing;
  }
}

/**
 * Copies a task's files into a sandbox's files directory: modes, symlinks, .git and both times
 * (access and modification) kept, without touching the host copy's access times. Entries are made
 * in name order (TASK_TAR_ARGS): a directory on the sandbox's tmpfs lists in the order its entries
 * were made, so `find` or `ls -U` print the same in every copy and on both backends (cp -a made them
 * in the order of the host copy's inode numbers, which depend on what else the disk was doing).
 */
async function copyFiles(hostDir: string, root: string): Promise<void> {
  const dest = path.join(root, "files");
  // biome-ignore lint/suspicious/noTemplateCurlyInString: "${@:3}" is bash's, expanded by the shell this runs
  const script = 'set -o pipefail; tar -C "$1" "${@:3}" -cf - . | tar -C "$2" --numeric-owner -xpf -';
  const cp = await run("bash", ["-c", script, "bash", hostDir, dest, ...TASK_TAR_ARGS]);
  if (!cp.ok) throw new SandboxError(`could not copy ${hostDir} into the sandbox: ${cp.out}`);
  // GNU tar gives extracted entries the time of extraction as their access time; put the host copy's back.
  await copyTimes(hostDir, dest);
}

/**
 * Sets each entry under `dest` to the access and modification times of its namesake under `src`
 * (links' own). The walk lists `dest`, the sandbox's own copy whose times are set after, and only
 * stats `src`: listing a directory of the host copy would renew its access time (relatime, no
 * O_NOATIME from node), and every later copy would then show it as read at that moment.
 */
async function copyTimes(src: string, dest: string): Promise<void> {
  const st = await fsp.lstat(src);
  if (st.isDirectory()) for (const name of await fsp.readdir(dest)) await copyTimes(path.join(src, name), path.join(dest, name));
  await fsp.lutimes(dest, st.atime, st.mtime);
}

async function startLocal(spec: SandboxSpec): Promise<LocalSandbox> {
  const limits = resolveLimits(spec.limits);
  const workdir = spec.workdir ?? spec.files?.mountAt ?? "/";
  const id = randomBytes(6).toString("hex");
  const root = mkdtempSync(path.join(os.tmpdir(), `ic-sandbox-${process.pid}-${id}-`));
  // One size-capped tmpfs holds everything writable (task files, /tmp, $HOME): filling it
  // cannot fill the host's disk. Needs root; elsewhere a plain directory.
  const mounted = process.getuid?.() === 0 && (await run("mount", ["-t", "tmpfs", "-o", `size=${limits.diskBytes},mode=0755`, "ic-sandbox", root])).ok;
  let cgroup: SandboxCgroup | null = null;
  try {
    for (const d of ["etc", "tmp", "vartmp", "home", "files"]) mkdirSync(path.join(root, d), { recursive: true });
    chmodSync(path.join(root, "tmp"), 0o1777);
    chmodSync(path.join(root, "vartmp"), 0o1777);
    writeFileSync(path.join(root, "etc", "passwd"), PASSWD);
    writeFileSync(path.join(root, "etc", "group"), GROUP);
    writeFileSync(path.join(root, "etc", "gitconfig"), GITCONFIG);
    writeFileSync(path.join(root, "etc", "hostname"), `${SANDBOX_HOSTNAME}\n`);
    writeFileSync(path.join(root, "etc", "hosts"), ETC_HOSTS);
    // A whole root must be in place before bwrap binds it; other task files go in after the
    // sandbox leaves the pool (create), through the bind of root/files.
    if (spec.files && !filesAfterTake(spec)) await copyFiles(spec.files.hostDir, root);
    cgroup = createSandboxCgroup(`ic-sandbox-${process.pid}-${id}`, { processes: limits.processes, memoryBytes: limits.memoryBytes });
    // The wrapper joins the cgroups and shields bwrap and the supervisor from the OOM killer
    // (the supervisor raises it back to 1000 for every command), then becomes bwrap.
    const join = 'for f in "$@"; do case "$f" in --) shift; break;; esac; echo $$ > "$f"; shift; done; echo -1000 > /proc/self/oom_score_adj; exec "$@"';
    const child = spawn("/bin/sh", ["-c", join, "sh", ...(cgroup?.procsFiles ?? []), "--", config().bwrap, ...bwrapArgs(root, spec, limits)], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } as unknown as NodeJS.ProcessEnv,
    });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      if (stderr.length < 4096) stderr += d.toString("utf8");
    });
    child.stdin!.on("error", () => undefined);
    const closeListeners: ((reason: string) => void)[] = [];
    child.on("exit", (code, signal) => {
      const why = `the sandbox process ended (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim()}` : ""}`;
      for (const l of closeListeners) l(why);
    });
    child.on("error", (err) => {
      for (const l of closeListeners) l(`could not start bwrap: ${err.message}`);
    });
    const client = new SupervisorClient(
      {
        write: (data) => {
          child.stdin!.write(data);
        },
        onData: (listener) => child.stdout!.on("data", listener),
        onClose: (listener) => closeListeners.push(listener),
      },
      limits,
      { workdir, label: `local sandbox ${id}` },
    );
    const sandbox = new LocalSandbox(id, limits, child, client, root, mounted, cgroup);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.ready,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new SandboxError(`local sandbox ${id} did not start within ${START_TIMEOUT_MS / 1000} s: ${stderr.trim()}`)),
            START_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (err) {
      await sandbox.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return sandbox;
  } catch (err) {
    if (!(err instanceof SandboxError || err instanceof BadInputError)) {
      await cgroup?.destroy();
      if (mounted) await run("umount", ["-l", root]);
      rmSync(root, { recursive: true, force: true });
      throw new SandboxError(`could not create a local sandbox: ${(err as Error).message}`, undefined, { cause: err });
    }
    if (existsSync(root)) {
      await cgroup?.destroy();
      if (mounted) await run("umount", ["-l", root]);
      rmSync(root, { recursive: true, force: true });
    }
    throw err;
  }
}

let availability: Promise<{ ok: true } | { ok: false; reason: string }> | undefined;

function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Frees what sandboxes of killed processes left: their tmpfs mounts, directories and cgroups. */
async function removeOrphans(): Promise<void> {
  for (const name of readdirSync(os.tmpdir())) {
    const m = /^ic-sandbox-(\d+)-[0-9a-f]+-/.exec(name);
    if (!m || !isDead(Number(m[1]))) continue;
    const dir = path.join(os.tmpdir(), name);
    await run("umount", ["-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
  await removeOrphanCgroups(isDead);
}

async function checkAvailable(): Promise<{ ok: true } | { ok: false; reason: string }> {
  await removeOrphans().catch(() => undefined);
  const probe = await run(config().bwrap, [
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--as-pid-1",
    "--cap-drop",
    "ALL",
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
  ]);
  if (!probe.ok) {
    return { ok: false, reason: `bubblewrap cannot start a sandbox here (${probe.out || "bwrap not found"}); install it with: apt-get install -y bubblewrap` };
  }
  if (!existsSync("/usr/bin/python3")) return { ok: false, reason: "the local sandbox runs its supervisor with /usr/bin/python3: apt-get install -y python3" };
  if (cgroupSupport() === null && !config().allowNoCgroup) {
    return {
      ok: false,
      reason:
        "no writable cgroup (v1 pids+memory or v2) for the local sandbox's process and memory caps: run as root with /sys/fs/cgroup writable, or set IC_SANDBOX_ALLOW_NO_CGROUP=1 to run without them",
    };
  }
  return { ok: true };
}

/** Options of the local backend. */
export interface LocalBackendOptions {
  /** Started sandboxes kept ready per (image, whole-root file system, limits); default IC_LOCAL_POOL or 2. 0 disables the pool. */
  poolSize?: number;
}

/** The bubblewrap backend. */
export function createLocalBackend(options: LocalBackendOptions = {}): SandboxBackend {
  const pool = new WarmPool<LocalSandbox>(options.poolSize ?? config().localPool);
  return {
    kind: "local",
    available: () => (availability ??= checkAvailable()),
    async create(spec) {
      const a = await (availability ??= checkAvailable());
      if (!a.ok) throw new SandboxUnavailableError(a.reason);
      checkSpec(spec);
      return takeForSpec(pool, spec, resolveLimits(spec.limits), () => startLocal(spec));
    },
    shutdown: () => pool.drain(),
  };
}
