import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BadInputError } from "@/lib/errors";
import { config, CONFIG_VARIABLES, parseConfig, parseStoreTarget, redactStoreUrl } from "./config";

const saved = { ...process.env };
afterEach(() => {
  for (const name of CONFIG_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe("parseConfig", () => {
  it("gives the documented defaults for an empty environment", () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      host: "127.0.0.1",
      port: 3000,
      token: null,
      idleMs: 600_000,
      maxSandboxes: 16,
      backend: "auto",
      dockerPool: 2,
      localPool: 2,
      bwrap: "bwrap",
    });
    expect(c.limits).toEqual({});
    expect(c.sqlUrl).toBeUndefined();
    expect(c.store).toEqual({ kind: "sqlite", file: path.resolve("var/studio.db") });
    expect(c.fsDir).toBe(path.join(c.dataDir, "fs"));
    expect(c.modelAttempts).toBe(4);
  });

  it("reads every value, empty strings as unset", () => {
    const c = parseConfig({
      IC_PORT: "0",
      IC_SANDBOX: "local",
      IC_TIMEOUT_MS: "2500",
      IC_DOCKER_POOL: "0",
      IC_DATA_DIR: "/tmp/x",
      IC_SQL_URL: "",
      IC_DEBUG: "1",
      IC_TOKEN: "",
    });
    expect(c).toMatchObject({ port: 0, backend: "local", dockerPool: 0, dataDir: "/tmp/x", fsDir: "/tmp/x/fs", debug: true, token: null, sqlUrl: undefined });
    expect(c.limits).toEqual({ timeoutMs: 2500 });
  });

  it.each([
    ["IC_PORT", "http", /IC_PORT: must be a port number/],
    ["IC_PORT", "70000", /IC_PORT: must be a port number/],
    ["IC_SANDBOX", "chroot", /IC_SANDBOX: must be docker, local or auto, got "chroot"/],
    ["IC_TIMEOUT_MS", "-1", /IC_TIMEOUT_MS: must be a positive integer, got "-1"/],
    ["IC_LOCAL_POOL", "two", /IC_LOCAL_POOL: must be a whole number/],
    ["IC_MODEL_ATTEMPTS", "0", /IC_MODEL_ATTEMPTS: must be a positive integer/],
    ["IC_DEBUG", "maybe", /IC_DEBUG: must be 1 or 0/],
  ])("a bad %s (%s) is a BadInputError naming the variable", (name, value, message) => {
    let err: unknown;
    try {
      parseConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).where).toBe(name);
    expect((err as Error).message).toMatch(message);
  });
});

describe("IC_DOCKER_HOSTS", () => {
  it("is null when unset: the one local engine, as before", () => {
    expect(parseConfig({}).dockerHosts).toBeNull();
    expect(parseConfig({ IC_DOCKER_HOSTS: " " }).dockerHosts).toBeNull();
  });

  it("reads unix, tcp (with TLS files) and ssh entries, each with its cap (default IC_MAX_SANDBOXES)", () => {
    const tls = fs.mkdtempSync(path.join(os.tmpdir(), "ic-tls-"));
    for (const f of ["ca.pem", "cert.pem", "key.pem"]) fs.writeFileSync(path.join(tls, f), "");
    const c = parseConfig({
      IC_MAX_SANDBOXES: "6",
      IC_DOCKER_HOSTS: `unix:///var/run/docker.sock#max=8, tcp://10.0.0.5:2376?tls=${tls}#max=4\nssh://ci@build-2:2222 tcp://h:2375`,
    });
    expect(c.dockerHosts).toEqual([
      { kind: "unix", name: "unix:///var/run/docker.sock", socketPath: "/var/run/docker.sock", max: 8 },
      { kind: "tcp", name: "tcp://10.0.0.5:2376", host: "10.0.0.5", port: 2376, tlsDir: tls, max: 4 },
      { kind: "ssh", name: "ssh://ci@build-2:2222", host: "build-2", port: 2222, username: "ci", keyFile: null, max: 6 },
      { kind: "tcp", name: "tcp://h:2375", host: "h", port: 2375, tlsDir: null, max: 6 },
    ]);
    fs.rmSync(tls, { recursive: true, force: true });
  });

  it.each([
    ["unix:///a.sock,http://h:2375", /entry 2 \("http:\/\/h:2375"\) must start with unix:\/\/, tcp:\/\/ or ssh:\/\//],
    ["tcp://h", /entry 1 \("tcp:\/\/h"\) a tcp:\/\/ engine needs a port/],
    ["tcp://h:2376?tls=/no/such/dir", /entry 1 .* \?tls=\/no\/such\/dir lacks ca.pem, cert.pem, key.pem/],
    ["tcp://h:2375?tsl=/x", /unknown option \?tsl=/],
    ["unix://docker.sock", /must be an absolute path/],
    ["tcp://h:2375#max=0", /must be max=N with N a positive integer/],
    ["tcp://h:2375#cap=3", /must be max=N/],
    ["ssh://me@h?key=/no/key", /\?key=\/no\/key does not exist/],
    ["tcp://h:2375,tcp://h:2375#max=2", /entry 2 .* names tcp:\/\/h:2375 a second time/],
  ])("a bad list (%s) is a BadInputError naming IC_DOCKER_HOSTS and the entry", (value, message) => {
    let err: unknown;
    try {
      parseConfig({ IC_DOCKER_HOSTS: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).where).toBe("IC_DOCKER_HOSTS");
    expect((err as Error).message).toMatch(message);
  });
});

describe("config()", () => {
  it("parses process.env once, and again only when an IC_* variable changed", () => {
    delete process.env.IC_IDLE_MS;
    const a = config();
    expect(config()).toBe(a);
    process.env.IC_IDLE_MS = "1234";
    const b = config();
    expect(b).not.toBe(a);
    expect(b.idleMs).toBe(1234);
    process.env.IC_IDLE_MS = "soon";
    expect(() => config()).toThrow(/IC_IDLE_MS: must be a positive integer/);
  });
});

describe("IC_DB", () => {
  it("a file path is a SQLite store; a postgresql:// URL is a PostgreSQL store, never a folder named after the scheme", () => {
    expect(parseConfig({ IC_DB: "x/studio.db" }).store).toEqual({ kind: "sqlite", file: path.resolve("x/studio.db") });
    const url = "postgresql://u:secret@127.0.0.1:5432/studio";
    expect(parseConfig({ IC_DB: url }).store).toEqual({ kind: "postgresql", url });
    expect(parseStoreTarget("postgres://h/db").kind).toBe("postgresql");
  });

  it("refuses another scheme and a URL without a database, naming it with the password hidden", () => {
    expect(() => parseConfig({ IC_DB: "mysql://u:pw@h/db" })).toThrow(/IC_DB: unsupported store URL scheme "mysql:\/\/"/);
    let err: unknown;
    try {
      parseConfig({ IC_DB: "postgresql://u:hunter2@h:5432" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadInputError);
    expect(String((err as Error).message)).toMatch(/names no database/);
    expect(String((err as Error).message)).not.toContain("hunter2");
    expect(redactStoreUrl("postgresql://u:hunter2@h:5432/db?schema=x")).toBe("postgresql://u:***@h:5432/db?schema=x");
  });
});
