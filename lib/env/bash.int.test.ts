import { afterAll, describe, expect, it, vi } from "vitest";
import { timeoutNote, truncationNote } from "@/lib/sandbox/limits";
import type { BashBreakdown } from "@/lib/reward/types";
import { BashEnvironment } from "./bash";
import { INTERRUPT_NOTE } from "./shell-episode";
import { getGoldCacheByTask } from "@/lib/db/gold-cache";
import { getSandboxBackend } from "@/lib/sandbox";
import { backendsUnderTest, sharedTask } from "@/lib/testing/backends";
import { useTempStore } from "@/lib/testing/store";
import { forgetGoldVerdicts } from "./bash-gold";

// Real sandboxes on a shared machine: allow for a loaded host.
vi.setConfig({ testTimeout: 240_000 });
const backends = await backendsUnderTest();
// Gold's score cache lives in the store (GoldCache): a store of this file's own.
useTempStore("bash-env");
const fs1 = (id: string) => sharedTask("nl2bash/nl2bash_fs_1.json", "nl2bash-fs1", id);
const open: BashEnvironment[] = [];
function env(options: ConstructorParameters<typeof BashEnvironment>[0] = {}) {
  const e = new BashEnvironment(options);
  open.push(e);
  return e;
}
afterAll(async () => {
  await Promise.all(open.map((e) => e.close()));
});

describe.each(backends)("bash environment on %s", (backend) => {
  it("starts in / with the task's query, and keeps cd and variables between actions", async () => {
    const e = env({ backend });
    const task = fs1("0");
    expect((await e.reset(task)).observation).toBe(task.query);
    expect((await e.step("pwd")).observation).toBe("/\n");
    expect(await e.step("cd /testbed && export GREETING=hello && LOCAL=1")).toMatchObject({ ok: true, done: false });
    const r = await e.step("pwd; echo $GREETING $LOCAL");
    expect(r.observation).toBe("/testbed\nhello 1\n");
    expect((await e.step("ls /no/such/dir")).ok).toBe(false);
    expect((await e.step("false")).ok).toBe(false);
    // A command reading stdin sees end of input instead of hanging.
    const t0 = Date.now();
    expect((await e.step("cat; read x; echo read:$?")).observation).toBe("read:1\n");
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("stops an action at the time limit, then goes on; a stuck shell is replaced with its cwd and exports", async () => {
    const e = env({ backend, limits: { timeoutMs: 1500 } });
    await e.reset(fs1("0"));
    await e.step("cd /testbed && export KEEP=yes");
    const slow = await e.step("echo started; sleep 30; echo never");
    expect(slow).toMatchObject({ ok: false, timedOut: true });
    expect(slow.observation).toBe("started\n" + timeoutNote(1500).replace(/^\n/, "\n"));
    expect((await e.step("echo alive")).observation).toBe("alive\n");
    const stuck = await e.step("while :; do :; done");
    expect(stuck.timedOut).toBe(true);
    const after = await e.step("pwd; echo $KEEP");
    expect(after).toMatchObject({ ok: true, observation: "/testbed\nyes\n" });
  });

  it("aborts the running action on Ctrl+C and keeps the episode", async () => {
    const e = env({ backend });
    await e.reset(fs1("0"));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const t0 = Date.now();
    const r = await e.step("sleep 20", { signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r.aborted).toBe(true);
    expect(r.observation.endsWith(INTERRUPT_NOTE)).toBe(true);
    expect((await e.step("echo ok")).observation).toBe("ok\n");
  });

  it("keeps only the first bytes of a long output and says so; streams output", async () => {
    const e = env({ backend, limits: { outputBytes: 1024 } });
    await e.reset(fs1("0"));
    const chunks: string[] = [];
    const r = await e.step("seq 1 100000", { onOutput: (c) => chunks.push(c) });
    expect(r.truncated).toBe(true);
    expect(r.observation.endsWith(truncationNote(1024))).toBe(true);
    expect(Buffer.byteLength(r.observation.slice(0, -truncationNote(1024).length))).toBe(1024);
    expect(chunks.join("")).toBe(r.observation.slice(0, -truncationNote(1024).length));
    const endless = await e.step("yes");
    expect(endless.truncated).toBe(true);
    expect((await e.step("echo next")).observation).toBe("next\n");
  });

  it("gives gold 1.0 and a wrong answer its lower reward with a breakdown", async () => {
    const e = env({ backend });
    for (const id of ["0", "44", "45"]) {
      const task = fs1(id);
      await e.reset(task);
      await e.step(task.gold as string);
      const r = await e.submit();
      expect(r.reward, `task ${id}: ${JSON.stringify(r.breakdown)}`).toBe(1);
    }
    // Task 44 creates abc.txt under dir1: doing nothing misses that change and the output.
    await e.reset(fs1("44"));
    await e.step("echo nothing here");
    const wrong = await e.submit();
    const b = wrong.breakdown as BashBreakdown;
    expect(wrong.reward).toBeLessThan(1);
    expect(b.kind).toBe("bash");
    expect(b.missing.length).toBeGreaterThan(0);
    expect(b.fileChanges).toBeLessThan(0.33);
    // Right files, wrong contents.
    const task45 = fs1("45");
    await e.reset(task45);
    await e.step("echo junk > /backup1.tar");
    const partial = await e.evaluate();
    expect((partial.breakdown as BashBreakdown).wrong).toEqual(["backup1.tar"]);
    expect(partial.reward).toBeLessThan(1);
    // Typing submit ends the episode like submit().
    const s = await e.step("submit");
    expect(s.done).toBe(true);
    expect(s.submitted?.reward).toBe(partial.reward);
  });

  it("ends an action with the jobs it sent to the background", async () => {
    const e = env({ backend });
    await e.reset(fs1("0"));
    expect((await e.step("(sleep 0.5; echo late; touch /testbed/late) & echo now")).observation).toBe("now\nlate\n");
    expect((await e.step("ls /testbed/late; jobs")).observation).toBe("/testbed/late\n");
  });

  it("runs gold at the score as an action in a fresh sandbox: what reads the clock or the process tree agrees with the agent's last action", async () => {
    const e = env({ backend });
    // Gold read the clock at reset before (and was cached for the task): the score came 1.5 s later.
    await e.reset({ ...fs1("0"), gold: "date +%s%N" });
    await new Promise((r) => setTimeout(r, 1500));
    const agent = await e.step("date +%s%N");
    const scored = await e.submit();
    const apartMs = (Number(scored.goldObservation) - Number(agent.observation)) / 1e6;
    expect(apartMs).toBeGreaterThan(0);
    expect(apartMs).toBeLessThan(1000);
    // The same shell runs gold as runs the agent's actions, with the same command line (NL2Bash fs4 5: pstree -a).
    await e.reset({ ...fs1("0"), gold: "pstree -a" });
    const tree = await e.step("pstree -a");
    expect(tree.observation).toContain("bash --norc --noprofile -c");
    const r = await e.submit();
    expect(r.goldObservation).toBe(tree.observation);
    expect(r.reward).toBe(1);
  });

  it("scores a deterministic gold from its cache with no second sandbox; a nondeterministic one and a changed task run gold at the score", async () => {
    const sandboxes = vi.spyOn(await getSandboxBackend(backend), "create");
    const opened = async (play: (e: BashEnvironment) => Promise<void>) => {
      const e = env({ backend });
      const before = sandboxes.mock.calls.length;
      await play(e);
      await e.close(); // waits for the gold check a first use starts
      return sandboxes.mock.calls.length - before;
    };
    const play = (task: ReturnType<typeof fs1>, action: string, into: { reward?: number; gold?: string }) => async (e: BashEnvironment) => {
      await e.reset(task);
      await e.step(action);
      const r = await e.submit();
      Object.assign(into, { reward: r.reward, gold: r.goldObservation });
    };
    try {
      // fs1 44 writes dir1/abc.txt: deterministic. Its first use runs gold in a seat and checks it twice beside.
      const task = { ...fs1("44"), id: "cache-44" }; // an id of its own: other tests here play fs1 44 too
      const first: { reward?: number } = {};
      expect(await opened(play(task, task.gold as string, first))).toBe(4);
      expect(first.reward).toBe(1);
      const row = await getGoldCacheByTask({ environment: "bash", dataset: task.dataset, taskId: task.id, variant: `score:${backend}:bash` });
      expect(JSON.parse(row!.details!)).toMatchObject({ deterministic: true });
      // Later episodes (this process, or another that reads the store) score it with the agent's sandbox alone.
      for (const forget of [false, true]) {
        if (forget) forgetGoldVerdicts();
        const cached: { reward?: number; gold?: string } = {};
        expect(await opened(play(task, task.gold as string, cached))).toBe(1);
        expect(cached).toEqual({ reward: 1, gold: row!.observation });
        const wrong: { reward?: number } = {};
        expect(await opened(play(task, "echo nothing here", wrong))).toBe(1);
        expect(wrong.reward).toBeLessThan(1);
      }
      // A gold that reads the clock in a way no screen names: its two runs differ, so every score runs it.
      const clock = { ...fs1("0"), id: "cache-clock", gold: "python3 -c 'import datetime as d; print(d.datetime.now().microsecond)'" };
      expect(await opened(play(clock, "true", {}))).toBe(4);
      const golds = new Set<string>();
      for (let i = 0; i < 2; i++) {
        const r: { gold?: string } = {};
        expect(await opened(play(clock, "true", r))).toBe(2);
        golds.add(r.gold!);
      }
      expect(golds.size).toBe(2);
      // The same task id with another gold (a changed task set) is not read from the cache: the
      // cached run (empty abc.txt in every dir1) would not match this answer.
      const changed = { ...task, gold: "mkdir -p /testbed/dir1 && echo changed > /testbed/dir1/abc.txt" };
      const after: { reward?: number; gold?: string } = {};
      expect(await opened(play(changed, "echo changed > /testbed/dir1/abc.txt", after))).toBe(4);
      expect(after.reward).toBe(1);
    } finally {
      sandboxes.mockRestore();
    }
  });

  it("isolates episodes: one episode's changes never reach another", async () => {
    const a = env({ backend });
    const b = env({ backend });
    await a.reset(fs1("0"));
    await b.reset(fs1("0"));
    await a.step("rm -rf /testbed/dir1 && touch /testbed/only-in-a && export SECRET=a");
    expect((await b.step("ls -d /testbed/dir1; ls /testbed/only-in-a; echo [$SECRET]")).observation).toMatch(
      /^\/testbed\/dir1\n[\s\S]*No such file[\s\S]*\[\]\n$/,
    );
    await a.reset(fs1("0"));
    expect((await a.step("ls -d /testbed/dir1 && ls /testbed/only-in-a")).ok).toBe(false);
  });
});

describe.each(backends)("bash environment under the intercode profile on %s", (backend) => {
  it("has InterCode's tools: mawk as awk, no xxd, md5deep or rename, column and cal; on docker bash 5.1, readline 8.1 and its groups", async () => {
    const e = env({ backend, profile: "intercode" });
    await e.reset(fs1("0"));
    expect((await e.step("echo | awk -f nofile")).observation).toBe("awk: cannot open nofile (No such file or directory)\n");
    for (const tool of ["xxd", "md5deep", "rename"])
      expect((await e.step(`${tool} /dev/null`)).observation).toBe(`/bin/bash: line 1: ${tool}: command not found\n`);
    expect((await e.step("printf 'a b\\ncc d\\n' | column -t")).observation).toBe("a   b\ncc  d\n");
    expect((await e.step("cal 2 2021 | head -1")).observation).toMatch(/February 2021/);
    expect((await e.step("env | grep -c LANG")).observation).toBe("0\n");
    if (backend !== "docker") return;
    // The bash-intercode image (row bash.image): bash 5.1, so a `bash -c` pipeline sees SHLVL 0
    // and readline 8.1's `bind -P` (no spell-correct-word, meta keys as \M-); Ubuntu's groups.
    expect((await e.step("echo $BASH_VERSION")).observation).toMatch(/^5\.1\./);
    expect((await e.step("env | grep SHLVL")).observation).toBe("SHLVL=0\n");
    const bindings = (await e.step("set -o emacs; bind -P | grep -e complete -e spell")).observation;
    expect(bindings).toContain(`complete can be found on "\\C-i", "\\M-\\M-".`);
    expect(bindings).not.toContain("spell-correct-word");
    expect((await e.step("cut -d: -f1 /etc/group | grep -x -e gnats -e messagebus -e crontab -e _ssh | sort")).observation).toBe(
      "_ssh\ncrontab\ngnats\nmessagebus\n",
    );
    // No network, so no DNS: an unknown name is not known, not a resolver's temporary failure.
    expect((await e.step("ping -c 1 no-such-host")).observation).toBe("ping: no-such-host: Name or service not known\n");
  });
});
