/**
 * Sandboxes on two Docker engines (IC_DOCKER_HOSTS): the shared engine, and a second dockerd of
 * this test's own (lib/testing/second-dockerd.ts) on a loopback TCP port with TLS, which starts
 * with no image. `icstudio hosts --load` streams the bash image onto it; sandboxes spread over
 * both; stopping the second engine mid-episode ends its sandbox with an error naming it and new
 * sandboxes go to the first; an unreachable host is refused at start. The shared engine is only
 * read from (its bash image saved) and given sandboxes like any docker test.
 *
 * Needs root, dockerd and the bash image; with IC_REQUIRE_DOCKER=1 (CI) their absence fails the
 * file instead of skipping it.
 */
import { spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import ssh2 from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { config, parseConfig, type DockerHostSetting } from "@/lib/config";
import { getTask } from "@/lib/datasets/registry";
import { BadInputError, LimitReachedError, SandboxError } from "@/lib/errors";
import { freePortIn, SecondDockerd, secondDockerdUnavailable } from "@/lib/testing/second-dockerd";
import { ROOT, spawnStudio } from "@/lib/testing/studio-server";
import { createDockerBackend, sandboxHost, type DockerBackend } from "./docker";
import { checkDockerHosts, connectDocker, defaultDockerHost, imageTag, probeHost } from "./docker-hosts";
import type { Sandbox } from "./types";

function skipReason(): string | null {
  const engine = secondDockerdUnavailable();
  if (engine) return engine;
  if (spawnSync("docker", ["image", "inspect", imageTag("bash")], { stdio: "ignore" }).status !== 0)
    return `${imageTag("bash")} is missing: bash scripts/build-images.sh`;
  return null;
}

const reason = skipReason();
if (reason && config().requireDocker) throw new Error(`IC_REQUIRE_DOCKER is set but the Docker hosts test cannot run: ${reason}`);

/** Runs `icstudio` with `env` added; resolves with its exit code and output. */
function icstudio(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "lib/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Studio sandbox containers of this process on an engine, by container name. */
function sandboxNamesOn(dockerHost: string, extra: string[] = []): string[] {
  const r = spawnSync("docker", ["-H", dockerHost, ...extra, "ps", "--filter", "label=org.intercode-studio.sandbox", "--format", "{{.Names}}"], {
    encoding: "utf8",
    timeout: 30_000,
  });
  return r.stdout.split("\n").filter(Boolean);
}

describe.skipIf(reason !== null)("sandboxes on two Docker engines (IC_DOCKER_HOSTS)", () => {
  let engine: SecondDockerd;
  const first = defaultDockerHost();
  let second: DockerHostSetting;
  let list: string;
  const backends: DockerBackend[] = [];
  const open: Sandbox[] = [];

  beforeAll(async () => {
    engine = new SecondDockerd({ name: "hosts", tcpPort: await freePortIn(23750, 23759) });
    await engine.remove();
    await engine.start();
    list = `${first.name}#max=4,${engine.tcpHost}?tls=${engine.tlsDir}#max=4`;
    second = parseConfig({ IC_DOCKER_HOSTS: list }).dockerHosts![1]!;
  }, 240_000);

  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    for (const b of backends) await b.shutdown?.();
    await engine?.remove();
  }, 120_000);

  const backendOn = (hosts: DockerHostSetting[]): DockerBackend => {
    const b = createDockerBackend({ hosts, poolSize: 0 });
    backends.push(b);
    return b;
  };

  it("hosts --load streams the bash image onto the new engine over TLS, and hosts lists both", async () => {
    const env = { IC_DOCKER_HOSTS: list };
    const before = await icstudio(["hosts", "--json"], env);
    expect(before.code, before.stderr).toBe(0);
    const listed = JSON.parse(before.stdout) as { hosts: { name: string; up: boolean; images: Record<string, boolean>; sandboxes: number; max: number }[] };
    expect(listed.hosts.map((h) => [h.name, h.up, h.max])).toEqual([
      [first.name, true, 4],
      [second.name, true, 4],
    ]);
    expect(listed.hosts[1]!.images).toEqual({ bash: false, "bash-intercode": false, python: false, sql: false, ctf: false });

    const started = Date.now();
    const load = await icstudio(["hosts", "--load", second.name, "--image", "bash", "--json"], env);
    const loadMs = Date.now() - started;
    expect(load.code, load.stdout + load.stderr).toBe(0);
    expect(JSON.parse(load.stdout)).toMatchObject({ loaded: [{ host: second.name, images: [{ image: "bash", how: "loaded", from: first.name }] }] });
    console.log(`hosts --load of the bash image: ${loadMs} ms`);

    const after = JSON.parse((await icstudio(["hosts", "--json"], env)).stdout) as typeof listed;
    expect(after.hosts[1]!.images).toEqual({ bash: true, "bash-intercode": false, python: false, sql: false, ctf: false });
    expect(spawnSync("docker", ["-H", engine.host, "image", "inspect", imageTag("bash")], { stdio: "ignore" }).status).toBe(0);
  }, 240_000);

  /**
   * The hosts with the first engine's cap set to its other processes' sandboxes (other test files,
   * other developers' servers: they count against a host's cap) plus `room`, so that both engines
   * start with the same free slots.
   */
  async function hostsWithRoom(room: number): Promise<DockerHostSetting[]> {
    const p = await probeHost(connectDocker(first));
    const others = p.up ? p.sandboxes.others : 0;
    return [
      { ...first, max: others + room },
      { ...second, max: room },
    ];
  }

  it("places each sandbox on the answering host with the most free slots that has its image, within each host's cap", async () => {
    const hosts = await hostsWithRoom(3);
    const backend = backendOn(hosts);
    const bash: Sandbox[] = [];
    // Until both engines took one: each create lowers the chosen host's free slots, so the second
    // engine's turn comes within the first's cap even when other processes' sandboxes come and go.
    for (let i = 0; i < hosts[0]!.max + 1 && new Set(bash.map(sandboxHost)).size < 2; i++) {
      const s = await backend.create({ image: "bash" });
      open.push(s);
      bash.push(s);
      // The rule, in the backend's own view: the chosen host had the most free slots (the first listed on a tie).
      const view = backend.hosts();
      const chosen = view.findIndex((h) => h.name === sandboxHost(s));
      const freeBefore = view.map((h, j) => h.free + (j === chosen ? 1 : 0));
      const best = Math.max(...freeBefore);
      expect(freeBefore[chosen], JSON.stringify(view)).toBe(best);
      expect(freeBefore.indexOf(best), JSON.stringify(view)).toBe(chosen);
      expect((await s.exec("echo on-$((20+1))")).output).toBe("on-21\n");
    }
    const on = bash.map((s) => sandboxHost(s));
    expect(on).toContain(first.name);
    expect(on).toContain(second.name);
    const names = sandboxNamesOn(engine.host);
    for (const s of bash) expect(names.includes(`ic-sandbox-${s.id}`), `${s.id} on ${sandboxHost(s)}`).toBe(sandboxHost(s) === second.name);
    // Only the first engine has the python image.
    const py = await backend.create({ image: "python" });
    open.push(py);
    expect(sandboxHost(py)).toBe(first.name);
    await Promise.all(open.splice(0).map((s) => s.close()));

    // The cap: a host takes #max live sandboxes, and a closed one frees its slot.
    const capped = backendOn([{ ...second, max: 2 }]);
    const a = await capped.create({ image: "bash" });
    const b = await capped.create({ image: "bash" });
    open.push(a, b);
    const full = await capped.create({ image: "bash" }).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(LimitReachedError);
    expect((full as Error).message).toContain(`${second.name} at its cap (2/2 live)`);
    await a.close();
    const c = await capped.create({ image: "bash" });
    open.push(c);
    expect(sandboxHost(c)).toBe(second.name);
    await Promise.all(open.splice(0).map((s) => s.close()));
  }, 180_000);

  it("ends an episode on a stopped engine with an error naming the host, and puts new episodes on the other", async () => {
    // The Studio's own path: IC_DOCKER_HOSTS read by config(), the docker backend from getSandboxBackend,
    // a bash episode (task file system, warm pool) through the environment. The second engine gets
    // the episode (its sandbox, its gold's seat and, at a gold's first use, the sandboxes that check
    // the gold is deterministic: up to four at once): the first one's cap leaves it four free slots,
    // the second has eight, so it stays the one with the most free slots.
    const [a, b] = await hostsWithRoom(4);
    process.env.IC_DOCKER_HOSTS = `${a!.name}#max=${a!.max},${engine.tcpHost}?tls=${engine.tlsDir}#max=8`;
    const { createEnvironment } = await import("@/lib/env");
    const { getSandboxBackend, shutdownSandboxBackends } = await import("./index");
    const backend = (await getSandboxBackend("docker")) as DockerBackend;
    const task = getTask("demo-bash", "count-python-files");
    const episode = await createEnvironment("bash", { backend: "docker" });
    try {
      await episode.reset(task);
      expect((await episode.step("echo before")).observation.trim()).toBe("before");
      const [onA, onB] = backend.hosts();
      expect([onA!.inUse, onB!.inUse >= 1]).toEqual([0, true]);

      await engine.crash();
      const crashedAt = Date.now();
      const err = await episode.step("echo during").catch((e: unknown) => e);
      const errorMs = Date.now() - crashedAt;
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as Error).message).toContain(`on ${b!.name}`);
      expect((err as Error).message).toMatch(/Docker engine stopped|connection to the Docker engine failed/);
      console.log(`error ${errorMs} ms after the engine stopped: ${(err as Error).message}`);
      await episode.close();

      // A new episode goes to the first engine (the second is down).
      const next = await createEnvironment("bash", { backend: "docker" });
      await next.reset(task);
      expect((await next.step("echo still")).observation.trim()).toBe("still");
      const [nowA, nowB] = backend.hosts();
      expect([nowA!.up, nowA!.inUse >= 1, nowB!.up, nowB!.inUse]).toEqual([true, true, false, 0]);
      await next.close();
    } finally {
      await episode.close().catch(() => {});
      await shutdownSandboxBackends();
      delete process.env.IC_DOCKER_HOSTS;
    }
    const listed = await icstudio(["hosts", "--json"], { IC_DOCKER_HOSTS: list });
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout).hosts[1]).toMatchObject({ name: second.name, up: false });
  }, 180_000);

  it("reaches an engine over ssh:// with a key file (an SSH server in the test runs docker system dial-stdio on the first engine)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-hosts-ssh-"));
    const pem = () =>
      generateKeyPairSync("rsa", {
        modulusLength: 2048,
        privateKeyEncoding: { type: "pkcs1", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
      }).privateKey;
    const clientKey = path.join(dir, "id_rsa");
    fs.writeFileSync(clientKey, pem(), { mode: 0o600 });
    const allowed = ssh2.utils.parseKey(fs.readFileSync(clientKey)) as ssh2.ParsedKey;
    const commands: string[] = [];
    const server = new ssh2.Server({ hostKeys: [pem()] }, (client) => {
      client
        .on("authentication", (ctx) => {
          const ok =
            ctx.method === "publickey" &&
            ctx.username === "ci" &&
            ctx.key.data.equals(allowed.getPublicSSH()) &&
            (!ctx.signature || allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true);
          if (ok) ctx.accept();
          else ctx.reject(["publickey"]);
        })
        .on("ready", () =>
          client.on("session", (accept) =>
            accept().on("exec", (acc, reject, info) => {
              commands.push(info.command);
              if (info.command !== "docker system dial-stdio") return reject();
              const stream = acc();
              const child = spawn("docker", ["-H", `unix://${(first as { socketPath: string }).socketPath}`, "system", "dial-stdio"], {
                stdio: ["pipe", "pipe", "pipe"],
              });
              stream.pipe(child.stdin);
              child.stdout.pipe(stream);
              child.stderr.pipe(stream.stderr);
              child.on("exit", (code) => {
                stream.exit(code ?? 1);
                stream.end();
              });
            }),
          ),
        )
        .on("error", () => {});
    });
    const port = await freePortIn(23750, 23759);
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    try {
      const [host] = parseConfig({ IC_DOCKER_HOSTS: `ssh://ci@127.0.0.1:${port}?key=${clientKey}#max=1000` }).dockerHosts!;
      expect(host).toMatchObject({ kind: "ssh", name: `ssh://ci@127.0.0.1:${port}`, username: "ci", keyFile: clientKey });
      await checkDockerHosts([host!]);
      const backend = backendOn([host!]);
      const s = await backend.create({ image: "bash" });
      open.push(s);
      expect(sandboxHost(s)).toBe(host!.name);
      expect((await s.exec("echo over-ssh")).output).toBe("over-ssh\n");
      expect(commands.every((c) => c === "docker system dial-stdio")).toBe(true);
      await Promise.all(open.splice(0).map((x) => x.close()));
      // A key the server does not take: refused at start, naming the host.
      const otherKey = path.join(dir, "other");
      fs.writeFileSync(otherKey, pem(), { mode: 0o600 });
      const [stranger] = parseConfig({ IC_DOCKER_HOSTS: `ssh://ci@127.0.0.1:${port}?key=${otherKey}` }).dockerHosts!;
      await expect(checkDockerHosts([stranger!])).rejects.toThrow(
        `IC_DOCKER_HOSTS: ssh://ci@127.0.0.1:${port} does not answer: All configured authentication methods failed`,
      );
    } finally {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses a host that does not answer at start, naming it, within seconds", async () => {
    const silent = `tcp://127.0.0.1:${await freePortIn(23750, 23759)}`;
    const hosts = parseConfig({ IC_DOCKER_HOSTS: `${first.name},${silent},tcp://10.255.255.1:2375` }).dockerHosts!;
    const started = Date.now();
    const err = await checkDockerHosts(hosts).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as Error).message).toMatch(new RegExp(`^IC_DOCKER_HOSTS: ${silent} does not answer`));
    // Unroutable: no answer within the ping's 3 s (or, behind a proxy that answers for it, not a Docker engine).
    expect((err as Error).message).toMatch(/tcp:\/\/10\.255\.255\.1:2375 (does not answer|answers, but not as a Docker engine)/);
    expect((err as Error).message).not.toContain(first.name);

    // The server refuses to start, before it prepares anything.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-hosts-db-"));
    const server = await spawnStudio(
      { IC_DOCKER_HOSTS: `${first.name},${silent}`, IC_DB: path.join(dir, "studio.db"), IC_SANDBOX: "docker" },
      { expectExit: true, readyTimeoutMs: 60_000 },
    );
    expect(await server.exited).toBe(1);
    expect(server.logs()).toContain(`cannot start: IC_DOCKER_HOSTS: ${silent} does not answer`);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
