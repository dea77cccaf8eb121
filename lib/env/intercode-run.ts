import "server-only";
import { randomBytes } from "node:crypto";
import type { Sandbox } from "@/lib/sandbox/types";
import {
  COMMAND_TIMED_OUT,
  intercodeArgv,
  intercodeCd,
  intercodeHashCommand,
  intercodeStatusEntries,
  MALFORMED_COMMAND,
  shlexSplit,
  ShlexError,
} from "./intercode-exec";

/** The PATH of InterCode's images (Ubuntu's default). */
const INTERCODE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The environment a command saw in InterCode's containers: the image's PATH, HOME, the
 * container's HOSTNAME (its id's first 12 hex digits), the NL2Bash image's own two variables, and
 * no LANG (so tools run in the C locale).
 */
export function intercodeEnv(fsNumber?: number): Record<string, string> {
  const env: Record<string, string> = { PATH: INTERCODE_PATH, HOSTNAME: randomBytes(6).toString("hex"), HOME: "/root" };
  if (fsNumber !== undefined) Object.assign(env, { file_system_version: String(fsNumber), script: `setup_nl2b_fs_${fsNumber}.sh` });
  return env;
}

/** Where a sandbox keeps the tool shims below (a git-ignored place InterCode's image also had). */
export const INTERCODE_TOOLS_FILE = "/run/intercode-studio/tools.sh";

/** The tools InterCode's NL2Bash image lacked. */
const INTERCODE_MISSING_TOOLS = ["xxd", "md5deep", "rename"];

/**
 * InterCode's NL2Bash image had mawk as `awk` and no `xxd`, `md5deep` or `rename`. The
 * `bash-intercode` image (profile row `bash.image`) is that way already; a sandbox whose tools are
 * the host's (the local backend) gets shims for what differs, read by every `bash -c` through
 * BASH_ENV (which it then unsets, so `env` does not show it): `awk` runs mawk under the name awk
 * (so its messages read as InterCode's did), and a tool InterCode lacked answers as bash does for
 * an unknown command. Functions, so `which` still finds the binaries. `present` is what the sandbox
 * has that InterCode's image had not; empty when it matches.
 */
function intercodeToolsScript(present: { gawkAsAwk: boolean; tools: string[] }): string {
  const lines = [
    ...(present.gawkAsAwk ? [`if [ -x /usr/bin/mawk ]; then awk() { (exec -a awk /usr/bin/mawk "$@"); }; fi`] : []),
    ...(present.tools.length ? [`__ic_missing() { printf '%s: line %s: %s: command not found\n' "$0" "\${BASH_LINENO[1]}" "$1" >&2; return 127; }`] : []),
    ...present.tools.map((t) => `${t}() { __ic_missing ${t}; }`),
  ];
  return lines.length ? [...lines, "unset BASH_ENV", ""].join("\n") : "";
}

/** Puts the tool shims a sandbox needs in it; returns the environment addition that loads them (none when its tools are InterCode's). */
export async function installIntercodeTools(sandbox: Sandbox): Promise<Record<string, string>> {
  const probe = await sandbox.exec(
    ["/bin/sh", "-c", `readlink -f "$(command -v awk)"; for t in ${INTERCODE_MISSING_TOOLS.join(" ")}; do command -v "$t" >/dev/null && echo "$t"; done; true`],
    { timeoutMs: 30_000 },
  );
  const [awk = "", ...tools] = probe.stdout.split("\n").filter(Boolean);
  const script = intercodeToolsScript({ gawkAsAwk: !awk.endsWith("/mawk"), tools });
  if (!script) return {};
  await sandbox.writeFile(INTERCODE_TOOLS_FILE, script);
  return { BASH_ENV: INTERCODE_TOOLS_FILE };
}

/** One command as InterCode ran it. */
export interface IntercodeRun {
  /** What InterCode recorded: the output, or "Malformed command" / "Command timed out". */
  observation: string;
  /** InterCode's `action_executed`: exit status 0. */
  ok: boolean;
  timedOut: boolean;
  /** The observation could not be had (split error, undecodable output). */
  malformed: boolean;
}

/**
 * Runs `command` the way InterCode's executor did: `<shell> -c "<command>"` split with shlex into
 * argv and run directly (no persistent shell), stdout and stderr together, in `cwd`, with
 * `env` as the whole environment.
 */
export async function runIntercodeCommand(
  sandbox: Sandbox,
  command: string,
  o: { cwd: string; env: Record<string, string>; timeoutMs: number; shell?: string; raw?: boolean },
): Promise<IntercodeRun> {
  let argv: string[];
  try {
    // `raw`: the command itself is split (InterCode's md5 commands went to the client unwrapped).
    argv = o.raw ? shlexSplit(command) : intercodeArgv(command, o.shell);
  } catch (err) {
    if (err instanceof ShlexError) return { observation: MALFORMED_COMMAND, ok: false, timedOut: false, malformed: true };
    throw err;
  }
  if (argv.length === 0) return { observation: MALFORMED_COMMAND, ok: false, timedOut: false, malformed: true };
  const r = await sandbox.exec(argv, {
    cwd: o.cwd,
    env: o.env,
    replaceEnv: true,
    timeoutMs: o.timeoutMs,
    maxOutputBytes: Math.max(sandbox.limits.outputBytes, 1 << 20),
  });
  if (r.timedOut) return { observation: COMMAND_TIMED_OUT, ok: false, timedOut: true, malformed: false };
  // Bytes that are not UTF-8 made InterCode's decode fail, which it reported as a malformed command.
  if (r.output.includes("\uFFFD")) return { observation: MALFORMED_COMMAND, ok: false, timedOut: false, malformed: true };
  return { observation: r.output, ok: r.exitCode === 0, timedOut: false, malformed: false };
}

/**
 * InterCode's per-action executor over one sandbox: a working directory kept outside the shell
 * (`cd` emulated as InterCode did), every action a fresh `/bin/bash -c`.
 */
export class IntercodeExecutor {
  workdir: string;

  constructor(
    readonly sandbox: Sandbox,
    private readonly opts: { env: Record<string, string>; home: string; wrap: "bash-c" | "cmd-prefix" },
  ) {
    this.workdir = opts.home;
  }

  /**
   * Makes a fresh sandbox over an NL2Bash tree what InterCode's container was when it started from
   * its image: InterCode's tool shims installed (every later command loads them), and git's index
   * agreeing with the tree. The sandbox's tree is a copy, so its files' inode numbers and change
   * times are not those the index recorded; `git reset --hard` would then rewrite every file (each
   * gets the reset's time as its mtime: `find -mtime`, `tar` archives and `%T@` change), where
   * InterCode's reset, over files unchanged since the image was built, rewrote only what an episode
   * had changed. Refreshing the index's stat data once, before any reset, restores that.
   */
  async prepareAsImage(): Promise<void> {
    Object.assign(this.opts.env, await installIntercodeTools(this.sandbox));
    // Exits 1 when a file differs from the index (none should in a fresh copy); the reset deals with it.
    await this.system("git update-index -q --refresh;");
  }

  /**
   * One agent action. `bash-c` (NL2Bash): wrapped as `/bin/bash -c "<action>"`, then split.
   * `cmd-prefix` (CTF): a leading `cmd` dropped, the rest split and run as it is.
   */
  async run(action: string): Promise<IntercodeRun> {
    const cd = intercodeCd(action, this.workdir);
    let command = cd ? cd.command : action;
    if (this.opts.wrap === "cmd-prefix" && command.startsWith("cmd")) command = command.slice(4).trim();
    const r = await runIntercodeCommand(this.sandbox, command, {
      cwd: cd ? "/" : this.workdir,
      env: this.opts.env,
      timeoutMs: this.sandbox.limits.timeoutMs,
      raw: this.opts.wrap === "cmd-prefix",
    });
    if (cd && r.ok) this.workdir = cd.target;
    return r;
  }

  /** A command the environment itself runs (reset, status, gold), from "/" as the container's default. */
  system(command: string, timeoutMs = 60_000): Promise<IntercodeRun> {
    return runIntercodeCommand(this.sandbox, command, { cwd: "/", env: this.opts.env, timeoutMs });
  }

  /**
   * InterCode's reset between episodes, in the same container: `git reset --hard; git clean -fd`
   * (files in ignored directories, processes and the like survive), working directory back home.
   * @throws Error when the reset fails, as InterCode's did.
   */
  async resetContainer(): Promise<void> {
    const r = await this.system("git reset --hard; git clean -fd;");
    if (!r.ok) throw new Error(`resetting the sandbox with git failed: ${r.observation.slice(0, 300)}`);
    this.workdir = this.opts.home;
  }

  /** `git status --short` as InterCode ran and read it, and its md5 fingerprints of the changed paths. */
  async snapshot(): Promise<{ status: { code: string; path: string }[]; hashes: Record<string, string> }> {
    const st = await this.system("git status --short;");
    const status = intercodeStatusEntries(st.observation);
    const hashes: Record<string, string> = {};
    for (const e of status) {
      if (!["A", "??", "C"].includes(e.code) || e.path in hashes) continue;
      const cmd = intercodeHashCommand(e.path);
      // md5deep was not in InterCode's image: the command failed the same way on both sides.
      hashes[e.path] = cmd.startsWith("md5deep")
        ? "md5deep: not installed"
        : (await runIntercodeCommand(this.sandbox, cmd, { cwd: "/", env: this.opts.env, timeoutMs: 60_000, raw: true })).observation;
    }
    return { status, hashes };
  }
}
