import "server-only";
import { DEFAULT_RECORDING_MAX_BYTES } from "@/lib/recording/events";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";

/**
 * The Studio's settings: every `IC_*` environment variable, parsed by one schema in this one
 * module (scripts/check-imports.mjs fails CI when another module reads one). Modules call
 * `config()` when they need a setting, or are handed the parsed `Config`; a bad value is a
 * BadInputError naming the variable. Tests and scripts that set variables before a call or a
 * spawned process keep working: the parse is redone only when an `IC_*` value changes.
 */

/** The repository root (one level above this file). */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Unset and "" mean "not set" throughout. */
const unset = (v: string | undefined): v is undefined | "" => v === undefined || v === "";

const text = () =>
  z
    .string()
    .optional()
    .transform((v) => (unset(v) ? undefined : v));

const int = (min: number, what: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (unset(v)) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) {
        ctx.addIssue({ code: "custom", message: `must be ${what}, got ${JSON.stringify(v)}` });
        return z.NEVER;
      }
      return n;
    });
const positiveInt = () => int(1, "a positive integer");
const count = () => int(0, "a whole number (0 or more)");

/** "1" / "true" / "yes" turn a switch on; "0" / "false" / "no" / unset leave it off. */
const flag = () =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (unset(v)) return false;
      const s = v.trim().toLowerCase();
      if (s === "1" || s === "true" || s === "yes") return true;
      if (s === "0" || s === "false" || s === "no") return false;
      ctx.addIssue({ code: "custom", message: `must be 1 or 0, got ${JSON.stringify(v)}` });
      return z.NEVER;
    });

const dir = () => text().transform((v) => (v === undefined ? undefined : path.resolve(v)));

/**
 * One Docker engine of IC_DOCKER_HOSTS. `name` is the entry without its options (`#max=`, `?tls=`,
 * `?key=`): how messages and `icstudio hosts` name the host.
 */
export type DockerHostSetting = { name: string; max: number } & (
  | { kind: "unix"; socketPath: string }
  | { kind: "tcp"; host: string; port: number; tlsDir: string | null }
  | { kind: "ssh"; host: string; port: number; username: string | null; keyFile: string | null }
);

/**
 * Parses one IC_DOCKER_HOSTS entry: `unix:///path`, `tcp://host:port[?tls=/dir]` (the dir holds
 * ca.pem, cert.pem and key.pem) or `ssh://[user@]host[:port][?key=/file]` (else the SSH agent),
 * each optionally ending in `#max=N` (live sandboxes on that host; default `defaultMax`).
 * Returns the setting or a message saying what is wrong with the entry.
 */
export function parseDockerHost(entry: string, defaultMax: number): DockerHostSetting | string {
  const hash = entry.indexOf("#");
  const main = hash < 0 ? entry : entry.slice(0, hash);
  let max = defaultMax;
  if (hash >= 0) {
    const m = /^max=(\d+)$/.exec(entry.slice(hash + 1));
    if (!m || Number(m[1]) < 1) return `the part after # must be max=N with N a positive integer`;
    max = Number(m[1]);
  }
  if (main.startsWith("unix://")) {
    const socketPath = main.slice("unix://".length);
    if (!socketPath.startsWith("/")) return "a unix socket must be an absolute path (unix:///var/run/docker.sock)";
    return { kind: "unix", name: main, socketPath, max };
  }
  let url: URL;
  try {
    url = new URL(main);
  } catch {
    return "must start with unix://, tcp:// or ssh://";
  }
  const options = new Map(url.searchParams);
  const allowed = url.protocol === "tcp:" ? ["tls"] : url.protocol === "ssh:" ? ["key"] : [];
  const unknown = [...options.keys()].filter((k) => !allowed.includes(k));
  if (url.protocol !== "tcp:" && url.protocol !== "ssh:") return "must start with unix://, tcp:// or ssh://";
  if (unknown.length)
    return `unknown option ${unknown.map((k) => `?${k}=`).join(", ")} (${url.protocol === "tcp:" ? "tcp:// takes ?tls=/dir" : "ssh:// takes ?key=/file"})`;
  if (!url.hostname) return "names no host";
  if (url.pathname && url.pathname !== "/") return `has a path (${url.pathname}); give only host and port`;
  const name = `${url.protocol}//${url.username ? `${url.username}@` : ""}${url.host}`;
  if (url.protocol === "tcp:") {
    if (!url.port) return "a tcp:// engine needs a port (2375, or 2376 with ?tls=/dir)";
    const tlsDir = options.get("tls") ? path.resolve(options.get("tls")!) : null;
    if (tlsDir) {
      const missing = ["ca.pem", "cert.pem", "key.pem"].filter((f) => !fs.existsSync(path.join(tlsDir, f)));
      if (missing.length) return `?tls=${tlsDir} lacks ${missing.join(", ")}`;
    }
    return { kind: "tcp", name, host: url.hostname, port: Number(url.port), tlsDir, max };
  }
  const keyFile = options.get("key") ? path.resolve(options.get("key")!) : null;
  if (keyFile && !fs.existsSync(keyFile)) return `?key=${keyFile} does not exist`;
  return { kind: "ssh", name, host: url.hostname, port: url.port ? Number(url.port) : 22, username: url.username || null, keyFile, max };
}

/** IC_DOCKER_HOSTS: entries separated by commas or white space; null when unset. */
function dockerHosts(raw: string | undefined, defaultMax: number): DockerHostSetting[] | string | null {
  if (unset(raw) || !raw.trim()) return null;
  const entries = raw.split(/[\s,]+/).filter(Boolean);
  const hosts: DockerHostSetting[] = [];
  for (const [i, entry] of entries.entries()) {
    const h = parseDockerHost(entry, defaultMax);
    if (typeof h === "string") return `entry ${i + 1} (${JSON.stringify(entry)}) ${h}`;
    if (hosts.some((o) => o.name === h.name)) return `entry ${i + 1} (${JSON.stringify(entry)}) names ${h.name} a second time`;
    hosts.push(h);
  }
  return hosts;
}

/** Where the trajectory store lives: a SQLite file, or a PostgreSQL database by URL. */
export type StoreTarget = { kind: "sqlite"; file: string } | { kind: "postgresql"; url: string };

/** A store URL with its password replaced by `***`, for messages and logs. */
export function redactStoreUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

/**
 * IC_DB (and `store copy`'s --from/--to, named by `where` in errors): a `postgresql://` (or `postgres://`) URL is a PostgreSQL
 * store; any other `scheme://` is refused (it used to become a folder named after the scheme
 * holding a SQLite file); anything else is a SQLite file path.
 */
export function parseStoreTarget(value: string, where?: string): StoreTarget {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === "postgresql" || scheme === "postgres") {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      throw new BadInputError(`not a valid PostgreSQL URL: ${JSON.stringify(redactStoreUrl(value))}`, where);
    }
    if (!u.hostname && !u.searchParams.get("host")) throw new BadInputError(`the PostgreSQL URL ${redactStoreUrl(value)} names no host`, where);
    if (u.pathname.length <= 1)
      throw new BadInputError(`the PostgreSQL URL ${redactStoreUrl(value)} names no database (postgresql://user:password@host:port/database)`, where);
    return { kind: "postgresql", url: value };
  }
  if (scheme)
    throw new BadInputError(
      `unsupported store URL scheme ${JSON.stringify(scheme + "://")}: use a SQLite file path or postgresql://user:password@host:port/database`,
      where,
    );
  return { kind: "sqlite", file: value === ":memory:" ? value : path.resolve(value.startsWith("file:") ? value.slice(5) : value) };
}

const storeTarget = () =>
  text().transform((v, ctx): StoreTarget | undefined => {
    if (v === undefined) return undefined;
    try {
      return parseStoreTarget(v);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
      return z.NEVER;
    }
  });

const envSchema = z
  .object({
    // The server (server.ts)
    IC_HOST: text(),
    IC_PORT: int(0, "a port number (0..65535)").refine((n) => n === undefined || n <= 65535, { message: "must be a port number (0..65535)" }),
    IC_TOKEN: text(),
    IC_ALLOWED_HOSTS: text(),
    IC_IDLE_MS: positiveInt(),
    IC_HELPER_IDLE_MS: positiveInt(),
    IC_STUDY_IDLE_MS: positiveInt(),
    IC_MAX_SANDBOXES: positiveInt(),
    IC_RECORDING_MAX_BYTES: positiveInt(),
    // Sandboxes (lib/sandbox)
    IC_SANDBOX: z
      .string()
      .optional()
      .transform((v, ctx): "docker" | "local" | "auto" => {
        const s = unset(v) ? "auto" : v.trim();
        if (s === "docker" || s === "local" || s === "auto") return s;
        ctx.addIssue({ code: "custom", message: `must be docker, local or auto, got ${JSON.stringify(v)}` });
        return z.NEVER;
      }),
    IC_TIMEOUT_MS: positiveInt(),
    IC_OUTPUT_BYTES: positiveInt(),
    IC_MEMORY_BYTES: positiveInt(),
    IC_PROCESS_LIMIT: positiveInt(),
    IC_FILE_BYTES: positiveInt(),
    IC_DISK_BYTES: positiveInt(),
    IC_DOCKER_POOL: count(),
    IC_DOCKER_HOSTS: text(),
    IC_LOCAL_POOL: count(),
    IC_BWRAP: text(),
    IC_SANDBOX_ALLOW_NO_CGROUP: flag(),
    // Data and the store
    IC_SQL_URL: text(),
    IC_DB: storeTarget(),
    IC_MIGRATIONS_DIR: dir(),
    IC_PG_MIGRATIONS_DIR: dir(),
    IC_DATA_DIR: dir(),
    IC_FS_DIR: dir(),
    IC_INTERCODE_DIR: dir(),
    // Models (lib/agent)
    IC_MODELS_CONFIG: dir(),
    IC_MODEL_ATTEMPTS: positiveInt(),
    IC_MODEL_TIMEOUT_MS: positiveInt(),
    IC_MODEL_KEY_ENV: text(),
    // The evaluation queue (lib/runs/queue, `icstudio worker`)
    IC_QUEUE: text(),
    IC_QUEUE_NAME: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (unset(v)) return undefined;
        if (/^[A-Za-z0-9_.-]{1,100}$/.test(v)) return v;
        ctx.addIssue({ code: "custom", message: `must be letters, digits, '_', '.' or '-' (at most 100), got ${JSON.stringify(v)}` });
        return z.NEVER;
      }),
    IC_QUEUE_LOCK_MS: int(500, "a number of milliseconds (500 or more)"),
    IC_QUEUE_ATTEMPTS: positiveInt(),
    IC_QUEUE_BACKOFF_MS: positiveInt(),
    // Diagnostics and test switches
    IC_DEBUG: flag(),
    IC_REQUIRE_DOCKER: flag(),
    IC_REQUIRE_MYSQL: flag(),
    IC_TEST_PG_URL: text(),
    IC_REQUIRE_PG: flag(),
    IC_REQUIRE_REDIS: flag(),
    IC_TEST_REDIS_URL: text(),
    IC_UPDATE_DOCS: flag(),
    IC_CHROMIUM: text(),
  })
  .transform((e, ctx) => {
    const maxSandboxes = e.IC_MAX_SANDBOXES ?? 16;
    const hosts = dockerHosts(e.IC_DOCKER_HOSTS, maxSandboxes);
    if (typeof hosts === "string") {
      ctx.addIssue({ code: "custom", message: hosts, path: ["IC_DOCKER_HOSTS"] });
      return z.NEVER;
    }
    const dataDir = e.IC_DATA_DIR ?? path.join(REPO_ROOT, "var");
    return {
      repoRoot: REPO_ROOT,
      /** Where the server listens (IC_HOST, IC_PORT). */
      host: e.IC_HOST ?? "127.0.0.1",
      port: e.IC_PORT ?? 3000,
      /** Required when `host` is not loopback (IC_TOKEN). */
      token: e.IC_TOKEN ?? null,
      /** Host names the server answers to besides loopback ones and IC_HOST, e.g. a reverse proxy's (IC_ALLOWED_HOSTS, comma- or space-separated). */
      allowedHosts: (e.IC_ALLOWED_HOSTS ?? "").split(/[\s,]+/).filter(Boolean),
      /** An idle episode's sandbox is closed after this (IC_IDLE_MS). */
      idleMs: e.IC_IDLE_MS ?? 10 * 60_000,
      /** A helper process (a SQLite engine's) or a warm sandbox unused this long is ended by the reaper (IC_HELPER_IDLE_MS; default IC_IDLE_MS). */
      helperIdleMs: e.IC_HELPER_IDLE_MS ?? e.IC_IDLE_MS ?? 10 * 60_000,
      /** A study participant with no input or focus for this long has their task's clock paused (IC_STUDY_IDLE_MS). */
      studyIdleMs: e.IC_STUDY_IDLE_MS ?? 60_000,
      /** Live sandboxes at once (IC_MAX_SANDBOXES). */
      maxSandboxes,
      /** Most bytes of an episode's recording (keystrokes, console output, editor changes) stored; past it the recording is marked truncated (IC_RECORDING_MAX_BYTES). */
      recordingMaxBytes: e.IC_RECORDING_MAX_BYTES ?? DEFAULT_RECORDING_MAX_BYTES,
      /** The sandbox backend (IC_SANDBOX). */
      backend: e.IC_SANDBOX,
      /** Whole-process overrides of the sandbox limits (IC_TIMEOUT_MS ... IC_DISK_BYTES); unset ones are absent. */
      limits: dropUndefined({
        timeoutMs: e.IC_TIMEOUT_MS,
        outputBytes: e.IC_OUTPUT_BYTES,
        memoryBytes: e.IC_MEMORY_BYTES,
        processes: e.IC_PROCESS_LIMIT,
        fileBytes: e.IC_FILE_BYTES,
        diskBytes: e.IC_DISK_BYTES,
      }),
      /** Warm sandboxes kept per image and file system (IC_DOCKER_POOL, IC_LOCAL_POOL); 0 disables. */
      dockerPool: e.IC_DOCKER_POOL ?? 2,
      /**
       * The Docker engines sandboxes are placed on (IC_DOCKER_HOSTS), each with its cap of live
       * sandboxes (default IC_MAX_SANDBOXES); null: the one engine of DOCKER_HOST or /var/run/docker.sock.
       */
      dockerHosts: hosts,
      localPool: e.IC_LOCAL_POOL ?? 2,
      /** The bubblewrap binary (IC_BWRAP). */
      bwrap: e.IC_BWRAP ?? "bwrap",
      /** Let the local sandbox run without cgroup caps (IC_SANDBOX_ALLOW_NO_CGROUP). */
      allowNoCgroup: e.IC_SANDBOX_ALLOW_NO_CGROUP,
      /** A MariaDB/MySQL server for the SQL environment, else embedded SQLite (IC_SQL_URL). */
      sqlUrl: e.IC_SQL_URL,
      /** The trajectory store (IC_DB: a file path, default var/studio.db under the working directory, or a postgresql:// URL). */
      store: e.IC_DB ?? ({ kind: "sqlite", file: path.resolve("var/studio.db") } as StoreTarget),
      /** SQLite migrations applied at startup (IC_MIGRATIONS_DIR). */
      migrationsDir: e.IC_MIGRATIONS_DIR ?? path.resolve("prisma/migrations"),
      /** PostgreSQL migrations applied at startup (IC_PG_MIGRATIONS_DIR). */
      pgMigrationsDir: e.IC_PG_MIGRATIONS_DIR ?? path.resolve("prisma/migrations-postgresql"),
      /** The writable state directory (IC_DATA_DIR; default var/ in the repository). */
      dataDir,
      /** The bash file systems (IC_FS_DIR; default <dataDir>/fs). */
      fsDir: e.IC_FS_DIR ?? path.join(dataDir, "fs"),
      /** The shared read-only copy of InterCode's data (IC_INTERCODE_DIR; default ../shared/intercode). */
      sharedIntercodeDir: e.IC_INTERCODE_DIR ?? path.resolve(REPO_ROOT, "../shared/intercode"),
      /** The models file (IC_MODELS_CONFIG). */
      modelsConfig: e.IC_MODELS_CONFIG ?? path.join(REPO_ROOT, "models.config.json"),
      /** Tries and time per model call (IC_MODEL_ATTEMPTS, IC_MODEL_TIMEOUT_MS). */
      modelAttempts: e.IC_MODEL_ATTEMPTS ?? 4,
      modelTimeoutMs: e.IC_MODEL_TIMEOUT_MS ?? 60_000,
      /**
       * Environment variables a model added in the page may take its key from, besides those the
       * models file names (IC_MODEL_KEY_ENV, comma- or space-separated); any other is refused.
       */
      modelKeyEnv: (e.IC_MODEL_KEY_ENV ?? "").split(/[\s,]+/).filter(Boolean),
      /** The Redis server of the evaluation queue, when `--queue` is not given (IC_QUEUE). */
      queueUrl: e.IC_QUEUE,
      /** The BullMQ queue's name: runs and workers that share a Redis must share it (IC_QUEUE_NAME). */
      queueName: e.IC_QUEUE_NAME ?? "icstudio-eval",
      /**
       * A worker's lease on a job (IC_QUEUE_LOCK_MS): renewed every half of it while the episode
       * runs; a worker silent for longer loses the job, which then runs elsewhere.
       */
      queueLockMs: e.IC_QUEUE_LOCK_MS ?? 30_000,
      /** Tries of a job whose episode failed on a provider error that may pass (IC_QUEUE_ATTEMPTS), and the first back-off (IC_QUEUE_BACKOFF_MS, doubling). */
      queueAttempts: e.IC_QUEUE_ATTEMPTS ?? 3,
      queueBackoffMs: e.IC_QUEUE_BACKOFF_MS ?? 10_000,
      /** Print stack traces of internal errors (IC_DEBUG). */
      debug: e.IC_DEBUG,
      /** Tests fail instead of skipping when docker / MySQL cannot run (IC_REQUIRE_DOCKER, IC_REQUIRE_MYSQL). */
      requireDocker: e.IC_REQUIRE_DOCKER,
      requireMysql: e.IC_REQUIRE_MYSQL,
      /** A PostgreSQL database the store tests may use (IC_TEST_PG_URL); with IC_REQUIRE_PG they fail without one. */
      testPgUrl: e.IC_TEST_PG_URL,
      requirePg: e.IC_REQUIRE_PG,
      /** Tests fail instead of skipping without a Redis server (IC_REQUIRE_REDIS); the one they use (IC_TEST_REDIS_URL, from scripts/start-redis.sh). */
      requireRedis: e.IC_REQUIRE_REDIS,
      testRedisUrl: e.IC_TEST_REDIS_URL,
      /** Tests that check a generated doc rewrite it instead (IC_UPDATE_DOCS). */
      updateDocs: e.IC_UPDATE_DOCS,
      /** The browser the e2e tests and bench viewer drive (IC_CHROMIUM). */
      chromium: e.IC_CHROMIUM ?? "/usr/bin/chromium",
    };
  });

function dropUndefined<T extends Record<string, number | undefined>>(o: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: number };
}

/** The parsed settings. */
export type Config = z.output<typeof envSchema>;

/** Environment variables as read here (process.env or a test's own). */
export type EnvVars = Record<string, string | undefined>;

/** Every `IC_*` variable the schema knows. */
export const CONFIG_VARIABLES = Object.keys(envSchema.in.shape) as (keyof typeof envSchema.in.shape)[];

/**
 * Parses `env` (process.env by default). A bad value is a BadInputError whose `where` is the
 * variable's name: `IC_PORT: must be a port number (0..65535), got "http"`.
 */
export function parseConfig(env: EnvVars): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new BadInputError(issue.message.startsWith("Invalid") ? `${issue.message}, got ${JSON.stringify(env[name])}` : issue.message, name);
  }
  return parsed.data;
}

let cached: { key: string; value: Config } | null = null;

/** The settings from process.env, parsed again only when an IC_* variable or the working directory changed. */
export function config(): Config {
  const env = process.env;
  let key = process.cwd();
  for (const name of CONFIG_VARIABLES) key += "\0" + (env[name] ?? "");
  if (cached?.key !== key) cached = { key, value: parseConfig(env) };
  return cached.value;
}
