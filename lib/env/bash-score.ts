import "server-only";
import type { Sandbox } from "@/lib/sandbox/types";

/**
 * What `git status --short` and the md5s say about a sandbox's file system after its commands.
 * The task file system is the sandbox's root, with the git repository of its initial state at "/"
 * (as InterCode's image has it), so paths read like "testbed/dir1/a.txt".
 */
export interface FsSnapshot {
  /** `git status --short` output, as InterCode reads it. */
  status: string;
  /** md5 per changed path (recursive over the files of a directory), keyed by the path as git prints it. */
  hashes: Record<string, string>;
}

/**
 * Lists changed paths with `git status --short` at "/", then hashes each changed path (files: md5
 * of the contents; directories: md5 over the sorted `md5  path` lines of every file below). Paths
 * that no longer exist hash to "-". A tree with nothing changed stops after the first listing (the
 * second would be empty too), and a hash is cut to its 32 characters by the shell: what it prints
 * is what it printed with a second listing and `cut` every time (cached gold snapshots were taken
 * so), for fewer processes started.
 */
export const SNAPSHOT_SCRIPT = String.raw`
cd / || exit 3
st=$(git -c safe.directory='*' -c core.quotepath=off status --short --untracked-files=normal 2>&1) || { printf '%s' "$st"; exit 4; }
printf '%s\n' "$st"
printf '\036\n'
[ -n "$st" ] || exit 0
git -c safe.directory='*' -c core.quotepath=off status --porcelain -z --untracked-files=normal | tr '\0' '\n' | while IFS= read -r line; do
  [ "${"$"}{line:2:1}" = " " ] || continue
  p="${"$"}{line:3}"
  p="${"$"}{p%/}"
  if [ -d "$p" ]; then h=$(find "$p" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum | md5sum)
  elif [ -e "$p" ]; then h=$(md5sum < "$p")
  else h=-; fi
  printf '%s\t%s\n' "${"$"}{h:0:32}" "$p"
done
`;

/** How long a snapshot may take, and how much it may print. */
const SNAPSHOT_TIMEOUT_MS = 20_000;
const SNAPSHOT_BYTES = 8 * 1024 * 1024;

/** The snapshot the script printed. */
function parseSnapshot(stdout: string): FsSnapshot {
  const [status = "", hashPart = ""] = stdout.split("\u001e\n");
  const hashes: Record<string, string> = {};
  for (const line of hashPart.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab > 0) hashes[line.slice(tab + 1)] = line.slice(0, tab);
  }
  return { status: status.replace(/\n$/, ""), hashes };
}

/**
 * Takes a snapshot of a sandbox's file system, in a process of its own started by the sandbox: never
 * through the episode's shell, whose state (functions shadowing builtins, readonly or exported
 * variables, aliases, limits, or another program exec'd in its place) is the agent's to set, and
 * the snapshot decides the reward.
 * @throws Error when "/" is not a git work tree.
 */
export async function snapshotTestbed(sandbox: Sandbox): Promise<FsSnapshot> {
  const r = await sandbox.exec(["bash", "-c", SNAPSHOT_SCRIPT], { cwd: "/", timeoutMs: SNAPSHOT_TIMEOUT_MS, maxOutputBytes: SNAPSHOT_BYTES });
  if (r.exitCode !== 0) throw new Error(`git status at / failed (exit ${r.exitCode}): ${r.output.slice(0, 500)}`);
  return parseSnapshot(r.stdout);
}
