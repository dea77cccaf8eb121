import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { config } from "@/lib/config";
import { SandboxError } from "@/lib/errors";

import { createDockerBackend } from "./docker";
import { registerSandboxConformance } from "./conformance";

function engineAnswers(): boolean {
  try {
    execFileSync("docker", ["version", "--format", "{{.Server.Version}}"], { stdio: "ignore", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

// CI sets IC_REQUIRE_DOCKER=1, so there a missing engine fails the suite instead of skipping it.
const skip = !config().requireDocker && !engineAnswers() ? "no Docker engine answers (set IC_REQUIRE_DOCKER=1 to fail instead)" : false;

registerSandboxConformance({ name: "docker", backend: () => createDockerBackend({ poolSize: 1 }), skip });

describe.skipIf(Boolean(skip))("docker backend: engine and container failures", () => {
  it("reports an engine that does not answer, and create fails with a clear SandboxError", async () => {
    const backend = createDockerBackend({ socketPath: "/nonexistent/docker.sock", poolSize: 0 });
    const a = await backend.available();
    expect(a.ok).toBe(false);
    expect(a.ok ? "" : a.reason).toContain("start-dockerd.sh");
    const err = await backend.create({ image: "bash" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxError);
    expect((err as Error).message).toMatch(/does not answer/);
  });

  it("fails calls with SandboxError when its container disappears, and the next sandbox works", async () => {
    const backend = createDockerBackend({ poolSize: 0 });
    const s = await backend.create({ image: "bash" });
    try {
      const name = `ic-sandbox-${s.id}`;
      execFileSync("docker", ["rm", "-f", name], { stdio: "ignore" });
      const err = await s.exec("echo hi").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as Error).message).toMatch(/container or the Docker engine stopped/);
      const next = await backend.create({ image: "bash" });
      expect((await next.exec("echo back")).output).toBe("back\n");
      await next.close();
    } finally {
      await s.close();
    }
  });

  it("gives a whole-root file system's commands no capability at all (the container needed three to switch roots)", async () => {
    const backend = createDockerBackend({ poolSize: 0 });
    const hostDir = mkdtempSync(path.join(os.tmpdir(), "ic-docker-root-"));
    const s = await backend.create({ image: "bash", files: { hostDir, mountAt: "/" }, workdir: "/" });
    try {
      const r = await s.exec(
        "grep -E '^Cap' /proc/self/status | grep -v '0000000000000000$'; mkdir -p /m; mount -t tmpfs x /m 2>/dev/null && echo mounted; chroot / true 2>/dev/null && echo chrooted; df -P / | tail -1 | awk '{print $1}'",
      );
      expect(r.output).toBe("tmpfs\n");
    } finally {
      await s.close();
      await backend.shutdown?.();
      rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it("rejects an unknown image and a task directory that does not exist, naming the field", async () => {
    const backend = createDockerBackend({ poolSize: 0 });
    await expect(backend.create({ image: "nope" as never })).rejects.toThrow(/sandbox spec image/);
    await expect(backend.create({ image: "bash", files: { hostDir: "/no/such/dir", mountAt: "/testbed" } })).rejects.toThrow(/files.hostDir/);
    await expect(backend.create({ image: "bash", files: { hostDir: "/tmp", mountAt: "/usr" } })).rejects.toThrow(/files.mountAt/);
  });
});
