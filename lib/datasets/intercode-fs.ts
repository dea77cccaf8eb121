import "server-only";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, promises as fsp } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { SandboxError } from "@/lib/errors";
import type { Sandbox } from "@/lib/sandbox/types";
import { buildDir, GIT_ENV, replaceBuiltTree } from "./bash-fs";
import { SYSTEM_DIRS } from "./fs-manifest";
import { intercodeDataDir } from "./paths";
import type { BashTask } from "./types";

const run = promisify(execFile);

/**
 * InterCode's own bash file systems.
 *
 * InterCode built each of its four NL2Bash images by running a setup script once, as root, from
 * "/" in an Ubuntu image, then `git init` at "/" with its `.gitignore` (the system directories)
 * and one commit. `icstudio datasets fetch intercode` brings those scripts (nl2bash/fs-setup/);
 * `buildIntercodeFileSystem` runs a script inside a sandbox (never on the host) over an empty
 * root, takes out what it made, and commits it with the script and the `.gitignore` the same way,
 * under var/fs/intercode-fs<N>/: a tree a sandbox takes as its root "/". NL2Bash tasks run on it
 * once it is built; until then they use the project's own file systems (datasets/bash/fsN.json).
 */

/** Where the setup data sits in a fetched data directory (and in `../shared/intercode`). */
export const FS_SETUP_DIR = "nl2bash/fs-setup";
export const FS_NUMBERS = [1, 2, 3, 4] as const;
export type FsNumber = (typeof FS_NUMBERS)[number];
export const setupScriptName = (n: FsNumber) => `setup_nl2b_fs_${n}.sh`;
export const GITIGNORE_NAME = "docker.gitignore";
/** The setup files a fetch brings, relative to the data directory. */
export const FS_SETUP_FILES: readonly string[] = [...FS_NUMBERS.map((n) => `${FS_SETUP_DIR}/${setupScriptName(n)}`), `${FS_SETUP_DIR}/${GITIGNORE_NAME}`];

/** Bumped when the builder's output changes for the same scripts. */
const BUILDER_VERSION = "intercode-fs/2";

/** The name of InterCode's file system N among the built file systems. */
export const intercodeFsName = (n: FsNumber) => `intercode-fs${n}`;

/** The built tree of InterCode's file system N (it exists once built). */
export function intercodeFsDir(n: FsNumber): string {
  return path.join(buildDir(), intercodeFsName(n));
}

/** Whether InterCode's file system N has been built. */
export function intercodeFsBuilt(n: FsNumber): boolean {
  return existsSync(path.join(intercodeFsDir(n), ".git")) && existsSync(`${intercodeFsDir(n)}.hash`);
}

/**
 * Top-level entries of a root that are not the file system's own: the system directories a
 * sandbox lays over it (SYSTEM_DIRS; InterCode's .gitignore lists most) and a sandbox's own marks.
 */
const NOT_OURS = [...SYSTEM_DIRS, ".dockerenv", ".sandbox-root"];

/**
 * Paths git must not see in a sandbox over the tree that InterCode's .gitignore does not name:
 * mount points the sandboxes add (InterCode's containers had no /tmp after their first
 * `git clean`, and no /lib64 on its arm64 image). Written to .git/info/exclude, so the
 * .gitignore an episode reads stays InterCode's.
 */
const SANDBOX_EXCLUDES = ["/tmp", "/lib32", "/lib64", "/libx32", "/.sandbox-root"];

/** Directories of InterCode's Ubuntu root that stay empty here (/mnt and /tmp went with its first `git clean`). */
const EMPTY_SYSTEM_DIRS = ["boot", "home", "media", "opt", "srv"];

/** The environment of InterCode's image build (Dockerfile ENV), in which the setup scripts ran. */
function buildEnv(n: FsNumber): Record<string, string> {
  return { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", HOME: "/root", file_system_version: String(n), script: setupScriptName(n) };
}

/** Which file system a bash task runs on, and where its tree is. */
export interface TaskFileSystem {
  /** "intercode": InterCode's own, built by the fetch; "studio": the project's (datasets/bash/<fs>.json). */
  source: "intercode" | "studio";
  /** The name shown to people: "intercode-fs1", or the project's "fs1", "demo". */
  name: string;
  /** InterCode's file system number, when source is "intercode". */
  number?: FsNumber;
}

/**
 * The file system a task runs on: InterCode's own for an NL2Bash task whose file system has
 * been built, else the project's (the demo tasks always, NL2Bash before a fetch).
 */
export function taskFileSystem(task: Pick<BashTask, "dataset" | "fs">): TaskFileSystem {
  const m = /^fs([1-4])$/.exec(task.fs);
  if (m && task.dataset.startsWith("nl2bash")) {
    const n = Number(m[1]) as FsNumber;
    if (intercodeFsBuilt(n)) return { source: "intercode", name: intercodeFsName(n), number: n };
  }
  return { source: "studio", name: task.fs };
}

function setupHash(dataDir: string, n: FsNumber): string {
  const h = createHash("sha256").update(BUILDER_VERSION);
  for (const f of [setupScriptName(n), GITIGNORE_NAME]) h.update("\0").update(readFileSync(path.join(dataDir, FS_SETUP_DIR, f)));
  return h.digest("hex").slice(0, 16);
}

/** Opens a sandbox (no warm pool: each build's empty root is used once) whose root is `hostDir`. */
async function openBuildSandbox(hostDir: string, backend: "local" | "docker" | "auto"): Promise<Sandbox> {
  const { getSandboxBackend } = await import("@/lib/sandbox");
  const kind = (await getSandboxBackend(backend)).kind;
  const b =
    kind === "docker"
      ? (await import("@/lib/sandbox/docker")).createDockerBackend({ poolSize: 0 })
      : (await import("@/lib/sandbox/local")).createLocalBackend({ poolSize: 0 });
  return b.create({ image: "bash", files: { hostDir, mountAt: "/" }, workdir: "/", limits: { timeoutMs: 120_000 } });
}

/**
 * Builds InterCode's file system N from the setup data in `dataDir` (a fetched data directory),
 * unless a build from the same data exists. The script runs in a sandbox over an empty root; what
 * it made outside the system directories comes out as a tar, and is committed on the host with
 * the script itself and InterCode's .gitignore, as its image had them. A failed build leaves any
 * earlier one in place.
 * @returns the built tree's directory.
 */
export async function buildIntercodeFileSystem(
  n: FsNumber,
  opts: { dataDir?: string; backend?: "local" | "docker" | "auto"; log?: (m: string) => void } = {},
): Promise<string> {
  const dataDir = opts.dataDir ?? intercodeDataDir();
  const log = opts.log ?? (() => {});
  const dir = intercodeFsDir(n);
  const stamp = `${dir}.hash`;
  const hash = setupHash(dataDir, n);
  if (existsSync(path.join(dir, ".git")) && (await fsp.readFile(stamp, "utf8").catch(() => "")).trim() === hash) return dir;

  const script = await fsp.readFile(path.join(dataDir, FS_SETUP_DIR, setupScriptName(n)));
  const gitignore = await fsp.readFile(path.join(dataDir, FS_SETUP_DIR, GITIGNORE_NAME));
  const base = buildDir();
  await fsp.mkdir(base, { recursive: true });
  const empty = await fsp.mkdtemp(path.join(base, `.ic-fs${n}-empty-`));
  const tree = await fsp.mkdtemp(path.join(base, `.ic-fs${n}-build-`));
  try {
    await fsp.chmod(empty, 0o755);
    log(`building ${intercodeFsName(n)}: running ${setupScriptName(n)} in a sandbox`);
    const sandbox = await openBuildSandbox(empty, opts.backend ?? "auto");
    let tarB64: string;
    try {
      const at = `/${setupScriptName(n)}`;
      await sandbox.writeFile(at, script);
      const env = buildEnv(n);
      const chmod = await sandbox.exec(["chmod", "755", at], { cwd: "/", env, replaceEnv: true });
      if (chmod.exitCode !== 0) throw new SandboxError(`chmod of ${at} failed: ${chmod.output}`);
      // As Docker's RUN did: /bin/sh -c <script>, from "/", as root. Its errors are part of what it
      // built (InterCode's scripts have a few: a BSD `date`, `mkdir -d`), so the exit status is not checked.
      const ran = await sandbox.exec(["/bin/sh", "-c", at], { cwd: "/", env, replaceEnv: true, timeoutMs: 120_000 });
      if (ran.timedOut) throw new SandboxError(`${setupScriptName(n)} did not finish within 120 s`);
      const skip = NOT_OURS.map((e) => e.replace(".", "\\.")).join("|");
      const pack = await sandbox.exec(
        ["/bin/bash", "-c", `cd / && ls -A | grep -vxE '${skip}' | tr '\\n' '\\0' | xargs -0 tar --numeric-owner -cf - -- | base64 -w0`],
        {
          cwd: "/",
          timeoutMs: 120_000,
          maxOutputBytes: 256 * 1024 * 1024,
        },
      );
      if (pack.exitCode !== 0 || pack.truncated) throw new SandboxError(`taking the built tree out of the sandbox failed: ${pack.stderr.slice(0, 500)}`);
      tarB64 = pack.stdout;
    } finally {
      await sandbox.close();
    }
    await new Promise<void>((resolve, reject) => {
      const tar = execFile("tar", ["-C", tree, "--numeric-owner", "-xpf", "-"], (err) => (err ? reject(err) : resolve()));
      tar.stdin!.end(Buffer.from(tarB64, "base64"));
    });
    await fsp.writeFile(path.join(tree, ".gitignore"), gitignore);
    // Empty system directories of InterCode's root that no sandbox lays over it (git ignores them).
    for (const d of EMPTY_SYSTEM_DIRS) await fsp.mkdir(path.join(tree, d), { recursive: true, mode: 0o755 });
    const git = (...args: string[]) => run("git", ["-C", tree, ...args], { env: { ...process.env, ...GIT_ENV } });
    await git("init", "-q", "-b", "master", "--template=");
    await fsp.mkdir(path.join(tree, ".git", "info"), { recursive: true });
    await fsp.writeFile(path.join(tree, ".git", "info", "exclude"), SANDBOX_EXCLUDES.map((p) => `${p}\n`).join(""));
    await git("add", "-A");
    await git("commit", "-q", "--no-gpg-sign", "-m", "initial commit");
    await git("gc", "-q", "--prune=now");
    await fsp.chmod(tree, 0o755);
    await replaceBuiltTree(tree, dir, stamp, hash);
    log(`built ${intercodeFsName(n)} in ${dir}`);
    return dir;
  } catch (err) {
    await fsp.rm(tree, { recursive: true, force: true });
    throw err;
  } finally {
    await fsp.rm(empty, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Builds all four (see buildIntercodeFileSystem). */
export async function buildIntercodeFileSystems(opts: Parameters<typeof buildIntercodeFileSystem>[1] = {}): Promise<string[]> {
  const out: string[] = [];
  for (const n of FS_NUMBERS) out.push(await buildIntercodeFileSystem(n, opts));
  return out;
}
