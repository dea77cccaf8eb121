/**
 * The sandbox conformance suite: every backend registers it from its own test file and must pass
 * all of it. Real sandboxes, real processes; nothing is mocked.
 */
import { execFileSync } from "node:child_process";
import { lutimesSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { NotFoundError, SandboxError } from "@/lib/errors";
import { ETC_HOSTS } from "./supervisor-client";
import type { Sandbox, SandboxBackend, SandboxProcess, SandboxSpec } from "./types";

export interface ConformanceTarget {
  /** Shown in the describe block. */
  name: string;
  /** Makes the backend under test (called once). */
  backend: () => SandboxBackend | Promise<SandboxBackend>;
  /** When set, the whole suite is skipped with this reason (only where the backend's tests allow). */
  skip?: string | false;
}

const MTIME = new Date("2021-03-04T05:06:07Z");
const LINK_MTIME = new Date("2020-01-02T03:04:05Z");
const ATIME = new Date("2019-05-06T07:08:09Z");

function makeHostDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ic-conformance-"));
  writeFileSync(path.join(dir, "hello.txt"), "hello from the host\n");
  mkdirSync(path.join(dir, "sub", "deep"), { recursive: true });
  writeFileSync(path.join(dir, "sub", "deep", "data.csv"), "a,b\n1,2\n");
  symlinkSync("hello.txt", path.join(dir, "link.txt"));
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "add", "."]);
  execFileSync("git", ["-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"]);
  utimesSync(path.join(dir, "hello.txt"), MTIME, MTIME);
  // Read by no test before the one that checks it (a read would renew it).
  utimesSync(path.join(dir, "sub", "deep", "data.csv"), ATIME, MTIME);
  lutimesSync(path.join(dir, "link.txt"), LINK_MTIME, LINK_MTIME);
  return dir;
}

/** Reads a spawned process's output until `marker` appears; returns what came before it. */
function readUntil(proc: SandboxProcess, marker: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${marker} within ${timeoutMs} ms; got ${JSON.stringify(text)}`));
    }, timeoutMs);
    const off = proc.onData((chunk) => {
      text += chunk.toString("utf8");
      const i = text.indexOf(marker);
      if (i >= 0) {
        clearTimeout(timer);
        off();
        resolve(text.slice(0, i));
      }
    });
  });
}

/** Registers the conformance tests for one backend. */
export function registerSandboxConformance(target: ConformanceTarget): void {
  describe.skipIf(Boolean(target.skip))(`sandbox conformance: ${target.name}`, () => {
    let backend: SandboxBackend;
    let hostDir: string;
    let spec: SandboxSpec;
    let sb: Sandbox;
    const extra: Sandbox[] = [];
    const open = async (overrides: Partial<SandboxSpec> = {}): Promise<Sandbox> => {
      const s = await backend.create({ ...spec, ...overrides });
      extra.push(s);
      return s;
    };

    beforeAll(async () => {
      backend = await target.backend();
      const a = await backend.available();
      if (!a.ok) throw new Error(`${target.name} is not available: ${a.reason}`);
      hostDir = makeHostDir();
      spec = { image: "bash", files: { hostDir, mountAt: "/testbed" }, limits: { processes: 64, memoryBytes: 256 * 1024 * 1024, diskBytes: 64 * 1024 * 1024 } };
      sb = await backend.create(spec);
    });

    afterAll(async () => {
      await sb?.close();
      await Promise.all(extra.map((s) => s.close()));
      await backend?.shutdown?.();
      if (hostDir) rmSync(hostDir, { recursive: true, force: true });
    });

    it("runs a command and reports stdout, stderr, the interleaved output and the exit code", async () => {
      const r = await sb.exec("echo out; echo err >&2; exit 3");
      expect(r.stdout).toBe("out\n");
      expect(r.stderr).toBe("err\n");
      expect(r.output).toContain("out\n");
      expect(r.output).toContain("err\n");
      expect(r.exitCode).toBe(3);
      expect(r).toMatchObject({ timedOut: false, truncated: false, aborted: false });
      const argv = await sb.exec(["printf", "%s|", "a b", "$HOME"]);
      expect(argv.output).toBe("a b|$HOME|");
      const missing = await sb.exec(["no-such-command-xyz"]);
      expect(missing.exitCode).toBe(127);
    });

    it("feeds stdin and closes it; without stdin a reader sees end of file at once", async () => {
      expect((await sb.exec("tr a-z A-Z", { stdin: "hello\nworld\n" })).output).toBe("HELLO\nWORLD\n");
      const r = await sb.exec("cat; echo done", { timeoutMs: 5000 });
      expect(r.output).toBe("done\n");
      expect(r.timedOut).toBe(false);
    });

    it("runs in the task directory by default and in the cwd asked for", async () => {
      expect((await sb.exec("pwd")).output).toBe("/testbed\n");
      expect((await sb.exec("pwd", { cwd: "/tmp" })).output).toBe("/tmp\n");
    });

    it("passes the env asked for and nothing of the host's environment", async () => {
      process.env.IC_CONFORMANCE_SECRET = "host-secret-value";
      const r = await sb.exec("echo $FOO; env", { env: { FOO: "bar baz" } });
      expect(r.output.split("\n")[0]).toBe("bar baz");
      expect(r.output).toMatch(/^PATH=.*\/usr\/bin/m);
      expect(r.output).not.toContain("host-secret-value");
      delete process.env.IC_CONFORMANCE_SECRET;
    });

    it("stops a command at its timeout, with its whole process group, and keeps working", async () => {
      const r = await sb.exec("sleep 30 & sleep 30; echo never", { timeoutMs: 400 });
      expect(r.timedOut).toBe(true);
      expect(r.exitCode).toBeNull();
      expect(r.output).not.toContain("never");
      expect(r.durationMs).toBeLessThan(5000);
      const after = await sb.exec(
        "echo alive; for i in $(seq 30); do ps -eo comm | grep -q '^sleep$' || break; sleep 0.1; done; ps -eo comm | grep -c '^sleep$' || true",
      );
      expect(after.output).toBe("alive\n0\n");
    });

    it("returns when the command exits even if a background child holds its output", async () => {
      const r = await sb.exec("sleep 20 & echo started", { timeoutMs: 8000 });
      expect(r.output).toBe("started\n");
      expect(r.timedOut).toBe(false);
      await sb.killStrays();
    });

    it("keeps the first maxOutputBytes of output, drops the rest and says so", async () => {
      const r = await sb.exec("head -c 300000 /dev/zero | tr '\\0' a; echo tail", { maxOutputBytes: 1000 });
      expect(r.output).toBe("a".repeat(1000));
      expect(r.truncated).toBe(true);
      expect(r.exitCode).toBe(0);
      const small = await sb.exec("echo fits");
      expect(small.truncated).toBe(false);
      const endless = await sb.exec("yes", { timeoutMs: 2000, maxOutputBytes: 4096 });
      expect(endless.output.length).toBe(4096);
      expect(endless.truncated).toBe(true);
      expect(endless.timedOut).toBe(true);
    });

    it("streams output through onOutput while the command runs", async () => {
      const chunks: { text: string; at: number }[] = [];
      const t0 = performance.now();
      const r = await sb.exec("echo one; sleep 0.6; echo two", { onOutput: (text) => chunks.push({ text, at: performance.now() - t0 }) });
      expect(chunks.map((c) => c.text).join("")).toBe("one\ntwo\n");
      expect(chunks[0]!.text).toBe("one\n");
      expect(r.durationMs - chunks[0]!.at).toBeGreaterThan(400);
    });

    it("stops a command when its signal aborts", async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const r = await sb.exec("sleep 10", { signal: ac.signal });
      expect(r.aborted).toBe(true);
      expect(r.timedOut).toBe(false);
      expect(r.exitCode).toBeNull();
      expect(r.durationMs).toBeLessThan(5000);
      const pre = new AbortController();
      pre.abort();
      expect((await sb.exec("sleep 10", { signal: pre.signal })).aborted).toBe(true);
    });

    it("reads and writes files, creating parent directories, byte for byte", async () => {
      expect((await sb.readFile("/testbed/hello.txt")).toString()).toBe("hello from the host\n");
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await sb.writeFile("/tmp/new/dir/bytes.bin", bytes);
      expect(Buffer.compare(await sb.readFile("/tmp/new/dir/bytes.bin"), bytes)).toBe(0);
      await sb.writeFile("/testbed/note.txt", "written\n");
      expect((await sb.exec("cat /testbed/note.txt")).output).toBe("written\n");
      await expect(sb.readFile("/testbed/missing.txt")).rejects.toBeInstanceOf(NotFoundError);
    });

    it("copies the task's files with their mtimes (links' own included), access times and .git", async () => {
      const r = await sb.exec(
        "stat -c %Y hello.txt link.txt; stat -c %X sub/deep/data.csv; test -d .git && echo has-git; git status --short | grep -v note.txt; cat sub/deep/data.csv",
      );
      expect(r.output).toBe(`${MTIME.getTime() / 1000}\n${LINK_MTIME.getTime() / 1000}\n${ATIME.getTime() / 1000}\nhas-git\na,b\n1,2\n`);
    });

    it("leaves the host copy's access times as they were, directories' included, so every copy gets the same", async () => {
      // A directory's access time older than its change time: under relatime any listing of it
      // without O_NOATIME renews it, and every later copy would then show it as read just now
      // (`find -amin -60` in a bash gold would list it in one copy and not in the other).
      const dir = mkdtempSync(path.join(os.tmpdir(), "ic-conformance-atime-"));
      try {
        mkdirSync(path.join(dir, "sub", "deep"), { recursive: true });
        writeFileSync(path.join(dir, "sub", "deep", "f.txt"), "x\n");
        for (const p of ["sub/deep/f.txt", "sub/deep", "sub", "."]) utimesSync(path.join(dir, p), ATIME, MTIME);
        const atimes = () => ["sub/deep", "sub"].map((p) => statSync(path.join(dir, p)).atimeMs);
        const seen = [];
        for (const mountAt of ["/testbed", "/", "/testbed"]) {
          const s = await open({ files: { hostDir: dir, mountAt }, workdir: mountAt });
          seen.push((await s.exec(`cd ${mountAt} && stat -c %X sub sub/deep sub/deep/f.txt`)).output);
          expect(atimes()).toEqual([ATIME.getTime(), ATIME.getTime()]);
        }
        const want = `${ATIME.getTime() / 1000}\n`.repeat(3);
        expect(seen).toEqual([want, want, want]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("makes a directory's entries in name order, so it lists alike in every copy and on every backend", async () => {
      // Made here in another order than their names'; a copy in the order of the host's inodes or
      // directory would list them so.
      const dir = mkdtempSync(path.join(os.tmpdir(), "ic-conformance-order-"));
      try {
        for (const name of ["mid", "zeta", "alpha", "beta"]) writeFileSync(path.join(dir, name), name);
        const listings = [];
        for (const mountAt of ["/testbed", "/"]) {
          const s = await open({ files: { hostDir: dir, mountAt }, workdir: mountAt });
          listings.push((await s.exec(`ls -U ${mountAt} | grep -E '^(mid|zeta|alpha|beta)$'`)).output);
        }
        // The sandbox's disk (a tmpfs) lists a directory newest entry first.
        expect(listings).toEqual(["zeta\nmid\nbeta\nalpha\n", "zeta\nmid\nbeta\nalpha\n"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("keeps each sandbox's files private: from each other and from the host", async () => {
      const hostBefore = readFileSync(path.join(hostDir, "hello.txt"), "utf8");
      const a = await open();
      const b = await open();
      await a.exec("echo changed > hello.txt; rm -rf sub; echo a > /tmp/only-a");
      expect((await b.exec("cat hello.txt; ls sub; ls /tmp")).output).toBe("hello from the host\ndeep\n");
      expect(readFileSync(path.join(hostDir, "hello.txt"), "utf8")).toBe(hostBefore);
      expect(statSync(path.join(hostDir, "sub")).isDirectory()).toBe(true);
    });

    it("shows nothing of the host: no host secrets, no project, read-only system directories", async () => {
      const r = await sb.exec(
        `for p in /work /home/${os.userInfo().username} ${hostDir} ${process.cwd()} /var/run/docker.sock /root/.ssh; do test -e "$p" && echo "visible $p"; done; ` +
          "touch /usr/bin/x 2>/dev/null && echo wrote-usr; touch /etc/x 2>/dev/null && echo wrote-etc; touch /x 2>/dev/null && echo wrote-root; " +
          "echo ok > /dev/null || echo no-dev-null; echo ok > /dev/shm/x || echo no-shm; echo ok > /var/tmp/x || echo no-var-tmp; echo checked",
      );
      expect(r.output).toBe("checked\n");
      // An image may have its own /etc/shadow (no passwords); the host's must not show through.
      const shadow = await sb.exec("cat /etc/shadow 2>/dev/null || true");
      let hostShadow = "";
      try {
        hostShadow = readFileSync("/etc/shadow", "utf8");
      } catch {
        // not readable by this user: nothing to compare
      }
      if (hostShadow) expect(shadow.output).not.toBe(hostShadow);
      expect(shadow.output).not.toMatch(/^root:\$/m);
    });

    it("has no network: not the host's loopback ports, not the outside", async () => {
      let connections = 0;
      const server = net.createServer((s) => {
        connections++;
        s.end();
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const port = (server.address() as net.AddressInfo).port;
      try {
        const py = (host: string) =>
          `python3 -c "import socket\ns=socket.socket()\ns.settimeout(2)\ntry:\n s.connect(('${host}', ${port})); print('connected')\nexcept OSError as e: print('blocked', e.errno)"`;
        const r = await sb.exec(`${py("127.0.0.1")}; ${py("10.0.0.1")}; ${py("8.8.8.8")}`, { timeoutMs: 9000 });
        expect(r.output).not.toContain("connected");
        expect(r.output.match(/blocked/g)?.length).toBe(3);
        expect(connections).toBe(0);
      } finally {
        server.close();
      }
    });

    it("has a host name that resolves through /etc/hosts, the same file on every backend, with no network behind it", async () => {
      const r = await sb.exec("hostname; getent hosts $(hostname); grep $(hostname) /etc/hosts | awk '{print $1}'");
      expect(r.output).toBe("sandbox\n127.0.1.1       sandbox\n127.0.1.1\n");
      expect((await sb.readFile("/etc/hosts")).toString("utf8")).toBe(ETC_HOSTS);
    });

    it("contains a fork bomb at the process cap and stays usable", async () => {
      const t0 = performance.now();
      const r = await sb.exec("bomb() { bomb | bomb & }; bomb; sleep 1; echo bombed", { timeoutMs: 2500 });
      // It ends one way or another (done, out of processes, or stopped at the timeout) and on time.
      expect(r.timedOut || r.exitCode !== null).toBe(true);
      expect(performance.now() - t0).toBeLessThan(15_000);
      await sb.killStrays();
      const after = await sb.exec("echo alive; ps -e -o stat= | grep -vc '^Z'");
      expect(after.output.split("\n")[0]).toBe("alive");
      expect(Number(after.output.split("\n")[1])).toBeLessThan(10);
    });

    it("contains a memory bomb at the memory cap and stays usable", async () => {
      const big = await sb.exec(`python3 -c "x = bytearray(4 * 1024 ** 3)"`, { timeoutMs: 20_000 });
      expect(big.exitCode).not.toBe(0);
      expect(big.output).toContain("MemoryError");
      // Growing step by step (each step touched) in a sandbox with a small cap.
      const s = await open({ limits: { ...spec.limits, memoryBytes: 96 * 1024 * 1024 } });
      const r = await s.exec(`python3 -c "x = []\nwhile True: x.append(bytearray(8 * 1024 * 1024))"`, { timeoutMs: 20_000 });
      expect(r.exitCode).not.toBe(0);
      expect(r.timedOut).toBe(false);
      expect((await s.exec("echo alive")).output).toBe("alive\n");
      expect((await sb.exec("echo alive")).output).toBe("alive\n");
    });

    it("bounds the disk and the size of one file", async () => {
      const disk = await sb.exec("head -c 40M /dev/zero > /tmp/f1; echo $?; head -c 40M /dev/zero > /tmp/f2; echo $?; rm -f /tmp/f1 /tmp/f2", {
        timeoutMs: 9000,
      });
      expect(disk.output).toMatch(/^0\n(.*No space left.*\n)?[1-9]\d*\n$/);
      const s = await open({ limits: { ...spec.limits, fileBytes: 1024 * 1024 } });
      const file = await s.exec("head -c 2M /dev/zero > /tmp/big; echo status $?; stat -c %s /tmp/big");
      expect(file.output).toMatch(/status [1-9]/);
      expect(file.output).toContain("1048576");
    });

    it("spawns a persistent process: ordered writes, prompt output, shared files, kill", async () => {
      await sb.exec("echo from-exec > /testbed/shared.txt");
      const sh = sb.spawn(["/bin/bash", "--noprofile", "--norc"]);
      sh.write("cat /testbed/shared.txt; cd /tmp; X=42; echo __M1__\n");
      expect(await readUntil(sh, "__M1__")).toBe("from-exec\n");
      sh.write("echo $PWD $X; echo __M2__\n");
      expect(await readUntil(sh, "__M2__")).toBe("/tmp 42\n");
      const lines = Array.from({ length: 200 }, (_, i) => `echo line${i}\n`);
      for (const l of lines) sh.write(l);
      sh.write("echo __M3__\n");
      expect(await readUntil(sh, "__M3__")).toBe(Array.from({ length: 200 }, (_, i) => `line${i}\n`).join(""));
      const t0 = performance.now();
      sh.write("echo quick; echo __M4__\n");
      await readUntil(sh, "__M4__");
      expect(performance.now() - t0).toBeLessThan(1000);
      const errs: string[] = [];
      const off = sh.onData((c, stream) => stream === "stderr" && errs.push(c.toString()));
      sh.write("echo oops >&2; echo __M5__\n");
      await readUntil(sh, "__M5__");
      off();
      expect(errs.join("")).toBe("oops\n");
      sh.kill();
      expect(await sh.exited).toEqual({ exitCode: null, signal: "SIGKILL" });
      const done = sb.spawn(["/bin/sh", "-c", "read x; exit $x"]);
      done.write("7\n");
      expect(await done.exited).toEqual({ exitCode: 7, signal: null });
    });

    it("killStrays kills left-behind processes but not spawned ones", async () => {
      const sh = sb.spawn(["/bin/bash", "--noprofile", "--norc"]);
      sh.write("echo __UP__\n");
      await readUntil(sh, "__UP__");
      await sb.exec("nohup sleep 100 >/dev/null 2>&1 & setsid sleep 101 >/dev/null 2>&1 &");
      // wait until both have exec'd (their names are nohup/setsid/sh until then)
      expect(
        (await sb.exec("for i in $(seq 50); do [ $(ps -eo comm | grep -c '^sleep$') = 2 ] && break; sleep 0.1; done; ps -eo comm | grep -c '^sleep$'")).output,
      ).toBe("2\n");
      await sb.killStrays();
      expect((await sb.exec("ps -eo comm | grep -c '^sleep$' || true")).output).toBe("0\n");
      sh.write("echo still-here; echo __UP2__\n");
      expect(await readUntil(sh, "__UP2__")).toBe("still-here\n");
      sh.kill();
      await sh.exited;
    });

    it("holds a whole-root file system (files at /) on one size-capped disk, with the system read-only and no capabilities", async () => {
      const s = await open({ files: { hostDir, mountAt: "/" }, workdir: "/" });
      const r = await s.exec(
        "cat /hello.txt; test -d /.git && echo has-git; test -e /.sandbox-root -o -e /.dockerenv && echo old-root-visible; " +
          "touch /usr/bin/x 2>/dev/null && echo wrote-usr; touch /etc/x 2>/dev/null && echo wrote-etc; touch /new.txt && echo wrote-root; " +
          "grep -E '^Cap(Prm|Eff|Amb):' /proc/self/status | grep -v '0000000000000000$'; echo checked",
      );
      expect(r.output).toBe("hello from the host\nhas-git\nwrote-root\nchecked\n");
      // The task's files, /tmp and $HOME share one cap: filling / leaves no room in /tmp.
      const disk = await s.exec("head -c 40M /dev/zero > /f1; echo $?; head -c 40M /dev/zero > /tmp/f2; echo $?; rm -f /f1 /tmp/f2", { timeoutMs: 9000 });
      expect(disk.output).toMatch(/^0\n(.*No space left.*\n)?[1-9]\d*\n$/);
      expect((await s.exec("echo alive > /root/x && cat /root/x")).output).toBe("alive\n");
      expect((await s.exec("getent hosts $(hostname)")).output).toBe("127.0.1.1       sandbox\n");
    });

    it("serves a task with other files from the warm pool, holding only that task's files", { timeout: 60_000 }, async () => {
      // Limits of their own, so these sandboxes have a pool of their own: the first is started
      // on demand, the second must come from the pool although its files are new to it.
      const limits = { ...spec.limits, processes: 63 };
      const other = mkdtempSync(path.join(os.tmpdir(), "ic-conformance-other-"));
      writeFileSync(path.join(other, "other.txt"), "other task\n");
      // When the sandbox's PID 1 (the supervisor) started, in seconds since boot (the clock is shared).
      const startedAt = async (s: Sandbox) => Number((await s.exec("cut -d' ' -f22 /proc/1/stat")).output) / 100;
      const uptime = () => Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
      try {
        const first = await open({ files: { hostDir, mountAt: "/testbed" }, limits });
        expect((await first.exec("ls -A /testbed | sort | tr '\\n' ' '")).output).toBe(".git hello.txt link.txt sub ");
        await first.exec("echo left-behind > /testbed/stray");
        const firstStart = await startedAt(first);
        // Time for the pool to start a replacement (it begins as soon as `first` is taken).
        await new Promise((r) => setTimeout(r, 5000));
        const asked = uptime();
        const second = await open({ files: { hostDir: other, mountAt: "/testbed" }, limits });
        expect((await second.exec("ls -A /testbed; cat /testbed/other.txt; pwd")).output).toBe("other.txt\nother task\n/testbed\n");
        const secondStart = await startedAt(second);
        expect(secondStart).toBeGreaterThanOrEqual(firstStart);
        expect(secondStart).toBeLessThan(asked);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });

    it("closes idempotently and refuses work afterwards", async () => {
      const s = await open();
      expect((await s.exec("echo hi")).output).toBe("hi\n");
      await s.close();
      await s.close();
      await expect(s.exec("echo hi")).rejects.toBeInstanceOf(SandboxError);
      expect(() => s.spawn(["/bin/sh"])).toThrow(SandboxError);
    });
  });
}
