import { execFileSync } from "node:child_process";

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
const skip = process.env.IC_REQUIRE_DOCKER !== "1" && !engineAnswers() ? "no Docker engine answers (set IC_REQUIRE_DOCKER=1 to fail instead)" : false;

registerSandboxConformance({ name: "docker", backend: () => createDockerBackend({ poolSize: 1 }), skip });
