import { afterAll, describe, expect, it, vi } from "vitest";
import { fsClock } from "@/lib/datasets/bash-fs";
import { intercodeFsBuilt, taskFileSystem } from "@/lib/datasets/intercode-fs";
import type { BashTask } from "@/lib/datasets/types";
import type { Sandbox } from "@/lib/sandbox/types";
import { backendsUnderTest, sharedTask } from "@/lib/testing/backends";
import { useTempStore } from "@/lib/testing/store";
import { BashEnvironment, hostDirOf, openFsSandbox } from "./bash";
import { SNAPSHOT_SCRIPT, snapshotTestbed } from "./bash-score";
import { ShellSession } from "./shell-session";

// Real sandboxes on a shared machine: allow for a loaded host.
vi.setConfig({ testTimeout: 240_000 });
const backends = await backendsUnderTest();
useTempStore("bash-score");
const fs1 = (id: string) => sharedTask("nl2bash/nl2bash_fs_1.json", "nl2bash-fs1", id) as BashTask;

const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await Promise.all(closing.map((c) => c()));
});

/** A sandbox over fs1's tree and a shell in it, as an episode has them. */
async function episodeSandbox(backend: "local" | "docker"): Promise<{ sandbox: Sandbox; shell: ShellSession }> {
  // CHANGES edits files of InterCode's own fs1 (the project's fs1 has other ones).
  if (!intercodeFsBuilt(1)) throw new Error("needs InterCode's fs1: run `npm run icstudio -- datasets fetch intercode --from ../shared/intercode` first");
  const task = fs1("0");
  const sandbox = await openFsSandbox(await hostDirOf(task, taskFileSystem(task), fsClock()), { backend });
  const shell = new ShellSession(sandbox, { cwd: "/" });
  closing.push(async () => {
    shell.close();
    await sandbox.close();
  });
  await shell.ready();
  return { sandbox, shell };
}

const step = (shell: ShellSession, command: string) => shell.run(command, { timeoutMs: 30_000, maxOutputBytes: 1 << 20 });

/** Changes of every kind the snapshot reads: an edit, a deletion, new files and directories, odd names, a staged rename. */
const CHANGES = [
  "cd /testbed",
  "echo more >> dir1/textfile1.txt",
  "rm dir2/shellscript2.sh",
  "mkdir -p new/sub && echo 1 > new/sub/f && echo 2 > new/g",
  "echo sp > 'a file.txt'",
  "printf x > $'nl\\nname'",
  "echo u > ünï.txt",
  `: > '"quoted".txt'`,
  "git -c safe.directory='*' -C / mv testbed/hello.c testbed/hello2.c",
].join(" && ");

/**
 * What an agent's commands may leave in its shell that would change a script run in it: functions
 * named as the tools the snapshot calls and as the builtins a clean-up would call (`unset`,
 * `builtin`, `compgen`), git's and the locale's variables (exported, some readonly), a PATH and HOME
 * of its own, aliases with their expansion on, shell options, IFS and a cwd; all of it silent, so
 * the next observation is empty.
 */
const LEFT_QUIET = [
  "git() { echo ' M testbed/faked.txt'; }; md5sum() { echo 0; }; find() { :; }; tr() { cat; }; cd() { builtin cd /testbed; }",
  "unset() { :; }; compgen() { :; }; builtin() { :; }",
  "export GIT_DIR=/nonexistent GIT_INDEX_FILE=/tmp/none LC_ALL=POSIX TMPDIR=/nonexistent XDG_CONFIG_HOME=/nonexistent HOME=/nonexistent PATH=/nonexistent:$PATH",
  "readonly GIT_DIR st p h",
  "shopt -s expand_aliases; alias git='echo fake'",
  "command cd /testbed/dir1",
  "set -u -o pipefail",
  "shopt -s nullglob failglob extglob dotglob",
  "IFS=:",
].join("; ");

/** LEFT_QUIET, and a trace and a DEBUG trap that print around every command the shell runs. */
const LEFT_BEHIND = `${LEFT_QUIET}; set -o noclobber -o functrace; trap 'echo debug-trap' DEBUG; set -x`;

/** The snapshot script as it was before a tree with nothing changed stopped after its first listing (cached gold snapshots were taken with it). */
const PREVIOUS_SCRIPT = String.raw`
cd / || exit 3
st=$(git -c safe.directory='*' -c core.quotepath=off status --short --untracked-files=normal 2>&1) || { printf '%s' "$st"; exit 4; }
printf '%s\n' "$st"
printf '\036\n'
git -c safe.directory='*' -c core.quotepath=off status --porcelain -z --untracked-files=normal | tr '\0' '\n' | while IFS= read -r line; do
  [ "${"$"}{line:2:1}" = " " ] || continue
  p="${"$"}{line:3}"
  p="${"$"}{p%/}"
  if [ -d "$p" ]; then h=$(find "$p" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum | md5sum | cut -c1-32)
  elif [ -e "$p" ]; then h=$(md5sum < "$p" | cut -c1-32)
  else h=-; fi
  printf '%s\t%s\n' "$h" "$p"
done
`;

describe.each(backends)("bash file-system snapshot on %s", (backend) => {
  it("prints what the previous script printed, on a tree with nothing changed and over every kind of change", async () => {
    const { sandbox, shell } = await episodeSandbox(backend);
    const both = async () => [(await sandbox.exec(["bash", "-c", SNAPSHOT_SCRIPT])).stdout, (await sandbox.exec(["bash", "-c", PREVIOUS_SCRIPT])).stdout];
    const [clean, cleanBefore] = await both();
    expect(clean).toBe(cleanBefore);
    expect(await snapshotTestbed(sandbox)).toEqual({ status: "", hashes: {} });

    expect((await step(shell, CHANGES)).exitCode).toBe(0);
    const [changed, changedBefore] = await both();
    expect(changed).toBe(changedBefore);
    const snap = await snapshotTestbed(sandbox);
    expect(snap.status.split("\n")).toEqual(
      expect.arrayContaining([
        "R  testbed/hello.c -> testbed/hello2.c",
        " M testbed/dir1/textfile1.txt",
        " D testbed/dir2/shellscript2.sh",
        "?? testbed/new/",
        '?? "testbed/\\"quoted\\".txt"',
        "?? testbed/ünï.txt",
      ]),
    );
    expect(Object.keys(snap.hashes)).toEqual(expect.arrayContaining(["testbed/new", "testbed/a file.txt", "testbed/dir2/shellscript2.sh", "testbed/ünï.txt"]));
    expect(snap.hashes["testbed/dir2/shellscript2.sh"]).toBe("-");
    expect(snap.hashes["testbed/new"]).toMatch(/^[0-9a-f]{32}$/);
  });

  it("is the same whatever the agent left in its shell (functions, aliases, traps, a trace, exported and readonly variables, cwd)", async () => {
    const { sandbox, shell } = await episodeSandbox(backend);
    expect((await step(shell, CHANGES)).exitCode).toBe(0);
    const before = await snapshotTestbed(sandbox);
    await step(shell, LEFT_BEHIND);
    // The state is there: the agent's own shell sees its git and its cwd.
    const seen = await step(shell, "git status; command pwd");
    expect(seen.output).toContain("fake");
    expect(seen.output).toContain("/testbed/dir1\n");
    expect(await snapshotTestbed(sandbox)).toEqual(before);
  });

  it("scores an episode the same whatever the agent left in its shell, and still sees a wrong file change", async () => {
    const e = new BashEnvironment({ backend });
    closing.push(() => e.close());
    const task = { ...fs1("44"), id: "score-left-44" };
    await e.reset(task);
    await e.step(task.gold as string);
    expect((await e.evaluate()).reward).toBe(1);
    expect((await e.step(LEFT_QUIET)).observation).toBe("");
    expect((await e.evaluate()).reward).toBe(1);
    await e.step("command echo junk > /testbed/dir1/abc.txt");
    expect((await e.submit()).reward).toBeLessThan(1);
  });
});
