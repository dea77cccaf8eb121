/**
 * Sandboxes: where the Studio runs untrusted code. Two backends behind one `Sandbox` contract
 * (types.ts), both proven by the conformance suite (conformance.ts):
 *
 * - local (local.ts): one bubblewrap per sandbox — read-only /usr, a minimal synthetic /etc, new
 *   user/PID/net/IPC/UTS namespaces, no capabilities, no nested user namespaces, killed with its
 *   parent — holding a private copy (`cp -a`) of the task's files, /tmp and /root on one
 *   size-capped tmpfs, in its own pids + memory cgroup.
 * - docker (docker.ts): one container per sandbox on one engine, or on several (IC_DOCKER_HOSTS,
 *   docker-hosts.ts: placed by free slots and images, a silent host marked down; `icstudio hosts`
 *   lists them and loads missing images onto one, host-images.ts). One container per sandbox (network none, read-only rootfs with tmpfs
 *   scratch, pids/memory caps, all capabilities dropped, no-new-privileges), task files unpacked
 *   from a cached tar. A whole-root file system (bash) is unpacked into one size-capped tmpfs
 *   that the supervisor makes the root (system directories bound read-only over it) before dropping
 *   the three capabilities it needed for that.
 *
 * In both, PID 1 is the same small supervisor (supervisor.py, driven by supervisor-client.ts over the
 * sandbox's stdio or docker attach stream): exec() is one fork+exec through it instead of a bwrap
 * start or a `docker exec`, spawn() is a process with open stdin on the same stream, killStrays()
 * kills every process but the supervisor and the spawned ones. A warm pool (pool.ts) keeps started
 * sandboxes per (image, files, limits) so a reset takes one instead of starting one; call
 * `shutdownSandboxBackends()` before exiting so pooled sandboxes are freed.
 */
import "server-only";

import { config } from "@/lib/config";
import { BadInputError, SandboxUnavailableError } from "@/lib/errors";
import type { SandboxBackend } from "./types";

/** Which backend to use: explicit, or "auto" (docker when it answers and its images exist, else local). */
export type BackendChoice = "docker" | "local" | "auto";

const backends = new Map<"docker" | "local", Promise<SandboxBackend>>();

async function load(kind: "docker" | "local"): Promise<SandboxBackend> {
  let p = backends.get(kind);
  if (!p) {
    p =
      kind === "local"
        ? import("./local").then((m) => m.createLocalBackend())
        : // IC_DOCKER_HOSTS that do not answer are refused here, at the first use of the backend
          // (a command's start); the next call checks again.
          import("./docker-hosts").then((h) => h.checkDockerHosts()).then(() => import("./docker").then((m) => m.createDockerBackend()));
    backends.set(kind, p);
    p.catch(() => backends.delete(kind));
  }
  return p;
}

function parseChoice(raw: string, where: string): BackendChoice {
  const v = raw.trim() || "auto";
  if (v === "docker" || v === "local" || v === "auto") return v;
  throw new BadInputError(`must be docker, local or auto, got ${JSON.stringify(raw)}`, where);
}

/**
 * The sandbox backend to run code with. An explicit choice returns that backend (check its
 * `available()`; `create` throws SandboxUnavailableError when it cannot run). "auto" (the default,
 * or `IC_SANDBOX`) returns docker when the engine answers and the images exist, else local when
 * bubblewrap works, and otherwise throws SandboxUnavailableError saying how to install one —
 * code is never run unsandboxed.
 */
export async function getSandboxBackend(choice?: BackendChoice | string | { backend?: BackendChoice | string }): Promise<SandboxBackend> {
  const raw = typeof choice === "object" ? choice.backend : choice;
  const picked = raw === undefined || raw === "auto" ? config().backend : parseChoice(raw, "sandbox backend");
  if (picked !== "auto") return load(picked);
  const docker = await load("docker");
  const d = await docker.available();
  if (d.ok) return docker;
  const local = await load("local");
  const l = await local.available();
  if (l.ok) return local;
  throw new SandboxUnavailableError(
    "no sandbox can run here, so no code will be run. Either install bubblewrap (apt-get install -y bubblewrap) " +
      "for the local sandbox, or Docker (apt-get install -y docker.io; bash scripts/start-dockerd.sh; bash scripts/build-images.sh). " +
      `docker: ${d.reason}; local: ${l.reason}`,
    { docker: d.reason, local: l.reason },
  );
}

/** Frees every backend's shared resources (warm container pools). */
export async function shutdownSandboxBackends(): Promise<void> {
  for (const p of backends.values()) {
    const b = await p.catch(() => null);
    await b?.shutdown?.();
  }
}
