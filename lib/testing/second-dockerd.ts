/**
 * Test helper (hardening/, lib/sandbox): a second Docker engine of the test's own, in its own
 * directories (data root, exec root, pid file, unix socket under /tmp/ic-<name>-<pid>), no bridge,
 * no iptables; optionally also listening on a loopback TCP port with TLS (a throwaway CA, server
 * and client certificates made with openssl). The shared engine is never touched. Needs root and
 * dockerd; `unavailable()` says why it cannot run here.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export interface SecondDockerdOptions {
  /** Names its directory: /tmp/ic-<name>-<pid>. */
  name: string;
  /** Also listen on tcp://127.0.0.1:<port> with TLS (client files in `tlsDir`). */
  tcpPort?: number;
}

/** Why a second engine cannot be started here, or null. */
export function secondDockerdUnavailable(): string | null {
  if (spawnSync("docker", ["version"], { stdio: "ignore" }).status !== 0) return "no docker client";
  if (spawnSync("docker", ["info"], { stdio: "ignore", timeout: 20_000 }).status !== 0) return "the Docker engine does not answer";
  if (spawnSync("sh", ["-c", "command -v dockerd"], { stdio: "ignore" }).status !== 0) return "no dockerd to start a second engine";
  if (process.getuid?.() !== 0) return "starting a second engine needs root";
  return null;
}

/** A free port on 127.0.0.1 in [from, to] (the range a test lane owns), or an error. */
export async function freePortIn(from: number, to: number): Promise<number> {
  for (let port = from; port <= to; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port on 127.0.0.1 in ${from}-${to}`);
}

export class SecondDockerd {
  readonly root: string;
  readonly sock: string;
  /** The unix socket as a DOCKER_HOST value (what the docker CLI calls below use). */
  readonly host: string;
  /** The TLS client files (ca.pem, cert.pem, key.pem) for the TCP address; null without tcpPort. */
  readonly tlsDir: string | null;
  /** tcp://127.0.0.1:<port>, or null. */
  readonly tcpHost: string | null;
  private readonly exec: string;
  private readonly pidfile: string;
  private readonly log: string;
  child: ChildProcess | null = null;

  constructor(private readonly options: SecondDockerdOptions) {
    this.root = `/tmp/ic-${options.name}-${process.pid}`;
    this.sock = path.join(this.root, "docker.sock");
    this.host = `unix://${this.sock}`;
    this.exec = path.join(this.root, "exec");
    this.pidfile = path.join(this.root, "docker.pid");
    this.log = path.join(this.root, "dockerd.log");
    this.tlsDir = options.tcpPort ? path.join(this.root, "client") : null;
    this.tcpHost = options.tcpPort ? `tcp://127.0.0.1:${options.tcpPort}` : null;
  }

  /**
   * Starts the engine and waits until it answers. A managed containerd that starts slowly on a
   * loaded machine makes dockerd give up ("timeout waiting for containerd"): the leftovers are
   * killed and it is started again, three times at most.
   */
  async start(): Promise<void> {
    fs.mkdirSync(this.root, { recursive: true });
    if (this.options.tcpPort && !fs.existsSync(path.join(this.tlsDir!, "key.pem"))) this.makeCertificates();
    let last = "";
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.startOnce()) return;
      last = this.tail();
      await this.killLeftovers();
    }
    throw new Error(`the second dockerd did not start in 3 attempts:\n${last}`);
  }

  /** A throwaway CA, a server certificate for 127.0.0.1 and a client certificate (EC keys: quick to make). */
  private makeCertificates(): void {
    const tls = path.join(this.root, "tls");
    fs.mkdirSync(tls, { recursive: true });
    fs.mkdirSync(this.tlsDir!, { recursive: true });
    const script = [
      "set -e",
      `cd ${tls}`,
      "key() { openssl ecparam -name prime256v1 -genkey -noout -out $1 2>/dev/null; }",
      "key ca-key.pem; openssl req -x509 -new -key ca-key.pem -out ca.pem -days 2 -subj /CN=ic-test-ca",
      "key server-key.pem; openssl req -new -key server-key.pem -out server.csr -subj /CN=127.0.0.1",
      "printf 'subjectAltName=IP:127.0.0.1\\nextendedKeyUsage=serverAuth\\n' > server.ext",
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out server-cert.pem -days 2 -extfile server.ext 2>/dev/null",
      `key ${this.tlsDir}/key.pem; openssl req -new -key ${this.tlsDir}/key.pem -out client.csr -subj /CN=ic-test-client`,
      "printf 'extendedKeyUsage=clientAuth\\n' > client.ext",
      `openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out ${this.tlsDir}/cert.pem -days 2 -extfile client.ext 2>/dev/null`,
      `cp ca.pem ${this.tlsDir}/ca.pem`,
    ].join("\n");
    execFileSync("bash", ["-c", script], { stdio: ["ignore", "ignore", "pipe"] });
  }

  private async startOnce(): Promise<boolean> {
    const out = fs.openSync(this.log, "a");
    const tls = path.join(this.root, "tls");
    const tcp = this.tcpHost
      ? [
          "--host",
          this.tcpHost,
          "--tlsverify",
          "--tlscacert",
          path.join(tls, "ca.pem"),
          "--tlscert",
          path.join(tls, "server-cert.pem"),
          "--tlskey",
          path.join(tls, "server-key.pem"),
        ]
      : [];
    this.child = spawn(
      "dockerd",
      [
        "--host",
        this.host,
        ...tcp,
        "--data-root",
        path.join(this.root, "data"),
        "--exec-root",
        this.exec,
        "--pidfile",
        this.pidfile,
        "--bridge=none",
        "--iptables=false",
        "--ip-masq=false",
        "--ip-forward=false",
        "--log-level=warn",
      ],
      { stdio: ["ignore", out, out], detached: true },
    );
    fs.closeSync(out);
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) return false;
      if (spawnSync("docker", ["-H", this.host, "info"], { stdio: "ignore", timeout: 10_000 }).status === 0) return true;
      await new Promise((r) => setTimeout(r, 300));
    }
    this.child.kill("SIGKILL");
    return false;
  }

  /** Copies `images` from the shared engine into this one (docker save | docker load). */
  loadImages(images: string[]): void {
    execFileSync("bash", ["-o", "pipefail", "-c", `docker save ${images.join(" ")} | docker -H ${this.host} load -q`], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 600_000,
    });
  }

  /** The engine's managed containerd (a child of dockerd, which outlives a SIGKILLed dockerd). */
  private containerdPid(): number | null {
    const f = path.join(this.exec, "containerd", "containerd.pid");
    const pid = fs.existsSync(f) ? Number(fs.readFileSync(f, "utf8").trim()) : NaN;
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  }

  /**
   * Stops the engine hard: dockerd SIGKILLed (an engine crash or `kill -9`), then its containerd,
   * shims and containers, which would otherwise outlive it and slow the restart down.
   */
  async crash(): Promise<void> {
    const containers = spawnSync("sh", ["-c", `docker -H ${this.host} ps -q | xargs -r docker -H ${this.host} inspect -f '{{.State.Pid}}'`], {
      encoding: "utf8",
      timeout: 30_000,
    })
      .stdout.split("\n")
      .map(Number)
      .filter((p) => Number.isInteger(p) && p > 0);
    const containerd = this.containerdPid();
    const exited = this.child && this.child.exitCode === null ? new Promise((r) => this.child!.once("exit", r)) : Promise.resolve();
    this.child?.kill("SIGKILL");
    await exited;
    if (containerd) tryKill(containerd, "SIGKILL");
    for (const pid of containers) tryKill(pid, "SIGKILL");
    await this.killLeftovers();
  }

  /** Kills every process of this engine (containerd and its shims name its directory on their command line). */
  async killLeftovers(): Promise<void> {
    for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      let cmd = "";
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        continue;
      }
      if (cmd.includes(this.root) && Number(pid) !== process.pid) tryKill(Number(pid), "SIGKILL");
    }
    await new Promise((r) => setTimeout(r, 500));
  }

  /** Stops the engine cleanly, kills what it left behind (by pid, found by this engine's paths) and removes its directories. */
  async remove(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      spawnSync("sh", ["-c", `docker -H ${this.host} ps -aq | xargs -r docker -H ${this.host} rm -f`], { stdio: "ignore", timeout: 60_000 });
      const exited = new Promise((r) => this.child!.once("exit", r));
      this.child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
      if (this.child.exitCode === null) this.child.kill("SIGKILL");
    }
    await this.killLeftovers();
    const mounts = fs
      .readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .map((l) => l.split(" ")[1])
      .filter((m) => m?.startsWith(this.root))
      .sort((a, b) => b.length - a.length);
    for (const m of mounts) spawnSync("umount", ["-l", m], { stdio: "ignore" });
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  tail(): string {
    return fs.existsSync(this.log) ? fs.readFileSync(this.log, "utf8").split("\n").slice(-15).join("\n") : "";
  }
}

function tryKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
