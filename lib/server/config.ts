import "server-only";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";

const positiveInt = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) {
        ctx.addIssue({ code: "custom", message: `${name} must be a positive integer, got ${JSON.stringify(v)}` });
        return z.NEVER;
      }
      return n;
    });

const serverEnvSchema = z.object({
  IC_HOST: z.string().min(1).default("127.0.0.1"),
  IC_PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return 3000;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: "custom", message: `IC_PORT must be a port number, got ${JSON.stringify(v)}` });
        return z.NEVER;
      }
      return n;
    }),
  IC_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? null : v)),
  IC_IDLE_MS: positiveInt("IC_IDLE_MS", 10 * 60_000),
  IC_MAX_SANDBOXES: positiveInt("IC_MAX_SANDBOXES", 16),
  IC_SANDBOX: z.enum(["docker", "local", "auto"]).default("auto"),
});

/** The custom server's settings, read from the environment. */
export interface ServerConfig {
  host: string;
  port: number;
  token: string | null;
  idleMs: number;
  maxSandboxes: number;
  backend: "docker" | "local" | "auto";
}

/** Validates process.env; a bad value is a BadInputError naming the variable. */
export function readServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const parsed = serverEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BadInputError(issue.message, issue.path.join(".") || "environment");
  }
  const e = parsed.data;
  return {
    host: e.IC_HOST,
    port: e.IC_PORT,
    token: e.IC_TOKEN,
    idleMs: e.IC_IDLE_MS,
    maxSandboxes: e.IC_MAX_SANDBOXES,
    backend: e.IC_SANDBOX,
  };
}
