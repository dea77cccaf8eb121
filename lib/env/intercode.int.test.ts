import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { goldCheck } from "@/lib/cli/commands/gold-check";
import { ctfFiles } from "@/lib/datasets/ctf-assets";
import { fetchIntercode } from "@/lib/datasets/fetch";
import { FS_SETUP_DIR, intercodeFsDir, taskFileSystem } from "@/lib/datasets/intercode-fs";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { clearDatasetCache, getTask, loadDataset } from "@/lib/datasets/registry";
import { goldShown as goldText } from "@/lib/episodes/gold";
import { publicTask } from "@/lib/tasks/tasks";
import { shutdownSandboxBackends } from "@/lib/sandbox";
import { BashEnvironment } from "./bash";
import { CtfEnvironment } from "./ctf";
import { COMMAND_TIMED_OUT, MALFORMED_COMMAND } from "./intercode-exec";

/**
 * InterCode's own bash file systems and CTF task files, fetched from ../shared/intercode into a
 * temporary data directory (the fetch builds the file systems in sandboxes), and the `intercode`
 * profile's executor over them. Local sandboxes: the docker backend runs the same code paths
 * (the conformance suite holds the two alike).
 */
vi.setConfig({ testTimeout: 240_000 });

const saved = { data: process.env.IC_DATA_DIR, fs: process.env.IC_FS_DIR };
let dataDir = "";
const open: { close(): Promise<void> }[] = [];
const track = <T extends { close(): Promise<void> }>(e: T): T => (open.push(e), e);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "ic-intercode-test-"));
  process.env.IC_DATA_DIR = dataDir;
  delete process.env.IC_FS_DIR;
  clearDatasetCache();
  const report = await fetchIntercode({ from: sharedIntercodeDir(), convert: false, backend: "local" });
  expect(report.fileSystemsError).toBeUndefined();
  expect(report.fileSystems).toHaveLength(4);
  expect(report.ctfTasks).toBe(100);
}, 600_000);

afterAll(async () => {
  await Promise.all(open.map((e) => e.close().catch(() => undefined)));
  await shutdownSandboxBackends();
  if (saved.data === undefined) delete process.env.IC_DATA_DIR;
  else process.env.IC_DATA_DIR = saved.data;
  if (saved.fs !== undefined) process.env.IC_FS_DIR = saved.fs;
  clearDatasetCache();
  rmSync(dataDir, { recursive: true, force: true });
});

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" });

describe("InterCode's bash file systems", () => {
  it("are what the setup scripts make, run once from / (their errors included), committed at / with InterCode's .gitignore", () => {
    const fs1 = intercodeFsDir(1);
    expect(readFileSync(path.join(fs1, "testbed/dir1/textfile1.txt"), "utf8")).toBe("Hello, World!\n");
    expect(statSync(path.join(fs1, "testbed/dir1/subdir1/shellscript1.sh")).mode & 0o111).not.toBe(0);
    expect(readFileSync(path.join(fs1, ".gitignore"), "utf8")).toBe(readFileSync(path.join(sharedIntercodeDir(), FS_SETUP_DIR, "docker.gitignore"), "utf8"));
    // fs2's `echo - e` writes its arguments as they are; `touch .placeholder ...` ran in /.
    const fs2 = intercodeFsDir(2);
    expect(readFileSync(path.join(fs2, "system/folder1/text3.txt"), "utf8")).toBe("- e Hello!\\nAnother hello world file\n");
    expect(git(fs2, "ls-files")).toContain(".placeholder\n");
    // fs3: GNU mkdir has no -d, so test/1dir was never made; chmod 400 kept.
    const fs3 = intercodeFsDir(3);
    expect(() => statSync(path.join(fs3, "workspace/test/1dir"))).toThrow();
    expect(statSync(path.join(fs3, "workspace/dir1/readonly.txt")).mode & 0o777).toBe(0o400);
    for (const n of [1, 2, 3, 4] as const) {
      const dir = intercodeFsDir(n);
      expect(git(dir, "status", "--short")).toBe("");
      expect(git(dir, "ls-files")).toContain(`setup_nl2b_fs_${n}.sh\n`);
    }
  });

  it("are what NL2Bash tasks run on, and a slice of every file system's gold commands scores 1.0 on them (or is documented)", async () => {
    const tasks = [1, 2, 3, 4].flatMap((n) => loadDataset(`nl2bash-fs${n}`).slice(0, 3));
    for (const t of tasks) if (t.env === "bash") expect(taskFileSystem(t)).toMatchObject({ source: "intercode", name: `intercode-${t.fs}` });
    const report = await goldCheck(tasks, { backend: "local", concurrency: 2 });
    expect(report.tasks).toBe(12);
    const undocumented = report.failures.filter((f) => !f.reason.includes("documented exception"));
    expect(undocumented).toEqual([]);
    const demo = getTask("demo-bash", loadDataset("demo-bash")[0]!.id);
    if (demo.env === "bash") expect(taskFileSystem(demo).source).toBe("studio");
    const pub = await publicTask(tasks[0]!);
    expect(pub).toMatchObject({ fs: "intercode-fs1", fsSource: "intercode" });
    expect(pub.tree).toContain("testbed/dir1/");
  });
});

describe("the intercode profile's bash executor", () => {
  it("runs each action as /bin/bash -c split by shlex: quotes cut the command, an open quote is Malformed command, a slow one Command timed out", async () => {
    const e = track(new BashEnvironment({ backend: "local", profile: "intercode", limits: { timeoutMs: 2000 } }));
    await e.reset(loadDataset("nl2bash-fs4")[0]!);
    expect((await e.step(`echo "a b" c`)).observation).toBe("a\n");
    expect(await e.step(`echo "I'm here to help"`)).toMatchObject({ observation: MALFORMED_COMMAND, ok: false });
    expect(await e.step("sleep 5")).toMatchObject({ observation: COMMAND_TIMED_OUT, ok: false });
    // Its own line numbers, and $0 as bash was started.
    expect((await e.step("nosuchcommand")).observation).toBe("/bin/bash: line 1: nosuchcommand: command not found\n");
    expect((await e.step(`nosuchcommand "x y"`)).observation).toBe("y: line 1: nosuchcommand: command not found\n");
    // No state between actions but the working directory, which cd moves as a string.
    expect((await e.step("X=1; echo $X")).observation).toBe("1\n");
    expect((await e.step("echo $X")).observation).toBe("\n");
    await e.step("cd /etc/../usr");
    expect((await e.step("pwd")).observation).toBe("/usr\n");
    // InterCode's image environment: no LANG, its own variables; mawk as awk, no xxd.
    const env = (await e.step("env")).observation;
    expect(env).toContain("file_system_version=4\n");
    expect(env).not.toMatch(/^LANG=/m);
    expect((await e.step("xxd /dev/null")).observation).toBe("/bin/bash: line 1: xxd: command not found\n");
    expect((await e.step("echo | awk -f nofile")).observation).toBe("awk: cannot open nofile (No such file or directory)\n");
  });

  it("keeps one sandbox across episodes on a file system, reset only with git reset --hard; git clean -fd", async () => {
    const e = track(new BashEnvironment({ backend: "local", profile: "intercode" }));
    const fs1 = loadDataset("nl2bash-fs1");
    await e.reset(fs1[0]!);
    await e.step("touch /root/kept /testbed/dropped; echo changed >> /testbed/textfile7.txt");
    await e.reset(fs1[1]!);
    const after = await e.step("ls /root/kept /testbed/dropped; cat /testbed/textfile7.txt");
    expect(after.observation).toContain("/root/kept\n");
    expect(after.observation).toContain("cannot access '/testbed/dropped'");
    expect(after.observation).not.toContain("changed");
    // A score as InterCode's: gold re-run in its own kept sandbox; the agent's tree unchanged scores its output only.
    const r = await e.evaluate();
    expect(r.breakdown).toMatchObject({ kind: "bash" });
  });
  it("resets with git without rewriting unchanged files, so their times stay the image's on the agent's and the evaluation side", async () => {
    const e = track(new BashEnvironment({ backend: "local", profile: "intercode" }));
    const fs1 = loadDataset("nl2bash-fs1");
    await e.reset(fs1[0]!);
    // The setup script's touch -t 202305312359.59 (UTC); a reset over a stale index rewrote it with the time of the reset.
    expect((await e.step("stat -c %Y /testbed/recent.txt")).observation).toBe("1685577599\n");
    // find -mtime +7 | ... | xargs -0 gzip: with every file rewritten, find found nothing and gzip
    // compressed standard input (binary output: "Malformed command" against gold's unset output).
    const report = await goldCheck([fs1[12]!], { backend: "local", profile: "intercode" });
    expect(report.failures).toEqual([]);
  });
});

describe("InterCode CTF task files", () => {
  const ctf = (id: string) => {
    const t = getTask("ctf", id);
    if (t.env !== "ctf") throw new Error("not ctf");
    return t;
  };

  it("are in the folder the episode starts in, without the write-up, which only the gold after submit holds", async () => {
    const task = ctf("0");
    const writeup = readFileSync(path.join(sharedIntercodeDir(), "ctf/task_assets/0/solution/README.md"), "utf8").trim();
    const e = track(new CtfEnvironment({ backend: "local" }));
    await e.reset(task);
    expect((await e.step("pwd; ls -A")).observation).toBe("/ctf\nunpackme.flag.py\n");
    const firstLine = writeup.split("\n").find((l) => l.trim().length > 8)!;
    const grep = await e.step(`grep -rlF ${JSON.stringify(firstLine)} / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null; echo done`);
    expect(grep.observation).toBe("done\n");
    // Nothing a player is sent before submit holds it; the gold shown after does.
    expect(JSON.stringify(await publicTask(task))).not.toContain(firstLine);
    expect(goldText(task)).toContain(firstLine);
    expect(goldText(task)).toContain(task.gold);
  });

  it("run under intercode as InterCode's CTF loop did: cmd dropped, the rest run without a shell; submit says whether the flag is right", async () => {
    const task = ctf("0");
    const e = track(new CtfEnvironment({ backend: "local", profile: "intercode" }));
    await e.reset(task);
    expect((await e.step("cmd ls")).observation).toBe("unpackme.flag.py\n");
    expect((await e.step(`cmd /bin/bash -c "wc -l < unpackme.flag.py"`)).ok).toBe(true);
    const s = await e.step(`submit ${task.gold}`);
    expect(s).toMatchObject({ observation: "The submitted flag is correct.", done: true });
    expect(s.submitted?.reward).toBe(1);
  });

  it("say so when missing (65, 66, 70 are not in the published data)", async () => {
    for (const id of ["65", "66", "70"]) {
      const f = ctfFiles(ctf(id));
      expect(f.state).toBe("absent");
      expect((await publicTask(ctf(id))).filesMissing).toMatch(/not in the published copy/);
    }
    expect(ctfFiles(ctf("3")).state).toBe("present");
  });
});
