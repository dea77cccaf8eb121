import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BadInputError } from "@/lib/errors";
import { config, CONFIG_VARIABLES, parseConfig } from "./config";

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
    expect(c).toMatchObject({ host: "127.0.0.1", port: 3000, token: null, idleMs: 600_000, maxSandboxes: 16, backend: "auto", dockerPool: 2, localPool: 1, bwrap: "bwrap" });
    expect(c.limits).toEqual({});
    expect(c.sqlUrl).toBeUndefined();
    expect(c.dbFile).toBe(path.resolve("var/studio.db"));
    expect(c.fsDir).toBe(path.join(c.dataDir, "fs"));
    expect(c.modelAttempts).toBe(4);
  });

  it("reads every value, empty strings as unset", () => {
    const c = parseConfig({ IC_PORT: "0", IC_SANDBOX: "local", IC_TIMEOUT_MS: "2500", IC_DOCKER_POOL: "0", IC_DATA_DIR: "/tmp/x", IC_SQL_URL: "", IC_DEBUG: "1", IC_TOKEN: "" });
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
