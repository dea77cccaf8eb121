import "server-only";
import type { EnvName } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import type { Environment, EnvironmentOptions } from "./types";

/**
 * Creates an environment for `env` (call reset(task) to start an episode). Each environment's
 * module is loaded on first use, so SQL's database drivers never load for a bash episode.
 */
export async function createEnvironment(env: EnvName, options: EnvironmentOptions = {}): Promise<Environment> {
  switch (env) {
    case "bash":
      return (await import("./bash")).createBashEnvironment(options);
    case "python":
      return (await import("./python")).createPythonEnvironment(options);
    case "ctf":
      return (await import("./ctf")).createCtfEnvironment(options);
    case "sql":
      return (await import("./sql")).createSqlEnvironment(options);
    default:
      throw new BadInputError(`unknown environment ${JSON.stringify(env)}`, "env");
  }
}
