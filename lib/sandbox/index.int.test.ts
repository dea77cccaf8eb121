import { afterEach, describe, expect, it } from "vitest";

import { BadInputError } from "@/lib/errors";
import { getSandboxBackend } from "./index";

const saved = process.env.IC_SANDBOX;
afterEach(() => {
  if (saved === undefined) delete process.env.IC_SANDBOX;
  else process.env.IC_SANDBOX = saved;
});

describe("getSandboxBackend", () => {
  it("returns the backend asked for, by argument, option object or IC_SANDBOX", async () => {
    delete process.env.IC_SANDBOX;
    expect((await getSandboxBackend("local")).kind).toBe("local");
    expect((await getSandboxBackend({ backend: "docker" })).kind).toBe("docker");
    process.env.IC_SANDBOX = "local";
    expect((await getSandboxBackend()).kind).toBe("local");
    expect((await getSandboxBackend("auto")).kind).toBe("local");
    expect((await getSandboxBackend("docker")).kind).toBe("docker");
  });

  it("auto picks a backend that can run here, docker first", async () => {
    delete process.env.IC_SANDBOX;
    const auto = await getSandboxBackend();
    expect((await auto.available()).ok).toBe(true);
    const docker = await getSandboxBackend("docker");
    if ((await docker.available()).ok) expect(auto.kind).toBe("docker");
    else expect(auto.kind).toBe("local");
  });

  it("rejects an unknown choice naming where it came from", async () => {
    await expect(getSandboxBackend("vm")).rejects.toBeInstanceOf(BadInputError);
    process.env.IC_SANDBOX = "chroot";
    await expect(getSandboxBackend()).rejects.toThrow(/IC_SANDBOX/);
  });
});
