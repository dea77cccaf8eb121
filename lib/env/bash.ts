import "server-only";
import { fileSystemAt, fsClock } from "@/lib/datasets/bash-fs";
import { intercodeFsDir, taskFileSystem, type TaskFileSystem } from "@/lib/datasets/intercode-fs";
import type { BashTask, Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { bashReward } from "@/lib/reward/bash";
import type { BashBreakdown } from "@/lib/reward/types";
import type { Sandbox } from "@/lib/sandbox/types";
import { snapshotTestbed, type FsSnapshot } from "./bash-score";
import { parseSubmit } from "@/lib/env/submit";
import { intercodeEnv, IntercodeExecutor } from "./intercode-run";
import { DEFAULT_PROFILE, profileValue } from "./profiles";
import { openSandbox } from "./sandbox";
import { ShellEpisode } from "./shell-episode";
import type { Environment, EnvironmentOptions, StepOptions, StepResult, SubmitResult } from "./types";

/**
 * The task's file system is the sandbox's root: the built tree (testbed/ and the rest, with the
 * git repository of its initial state at "/") becomes a private copy at "/", and actions start in
 * "/" as InterCode's do.
 */
export const FS_MOUNT = "/";

/** Opens a sandbox over file system `fs` (its tree becomes the sandbox's root, a private copy), on the profile's image (row `bash.image`). */
async function openFsSandbox(hostDir: string, options: EnvironmentOptions): Promise<Sandbox> {
  const image = profileValue(options.profile ?? DEFAULT_PROFILE, "bash.image");
  return openSandbox({ image, files: { hostDir, mountAt: FS_MOUNT }, workdir: "/" }, options);
}

/** What gold printed and changed, computed once per task, file system and backend. */
interface GoldResult {
  output: string;
  snapshot: FsSnapshot;
}
const goldCache = new Map<string, Promise<GoldResult>>();

/** Runs the gold command(s) in a fresh sandbox over the task's file system (InterCode joins a list with ";"). */
async function runGold(task: BashTask, hostDir: string, options: EnvironmentOptions): Promise<GoldResult> {
  const sandbox = await openFsSandbox(hostDir, options);
  try {
    const gold = Array.isArray(task.gold) ? task.gold.join(";") : task.gold;
    const r = await sandbox.exec(["bash", "-c", gold], { cwd: "/" });
    const snapshot = await snapshotTestbed(sandbox);
    return { output: r.output, snapshot };
  } finally {
    await sandbox.close();
  }
}

function goldFor(task: BashTask, hostDir: string, sandbox: Sandbox, options: EnvironmentOptions): Promise<GoldResult> {
  const key = `${sandbox.backend}\0${hostDir}\0${JSON.stringify(task.gold)}`;
  let hit = goldCache.get(key);
  if (!hit) {
    hit = runGold(task, hostDir, options);
    hit.catch(() => goldCache.delete(key));
    goldCache.set(key, hit);
  }
  return hit;
}

/**
 * The bash environment: a persistent shell per episode over a private copy of the task's file
 * system (/testbed and the rest), started in /. Reward as InterCode computes it, from `git status` of
 * the agent's sandbox and of gold's own fresh sandbox, md5s of paths both changed, and the tf-idf
 * similarity of the agent's last observation with gold's output.
 */
export class BashEnvironment extends ShellEpisode<BashTask> implements Environment {
  readonly env = "bash" as const;
  private hostDir = "";
  private nowMs = 0;
  /** The file system the current episode runs on (InterCode's own once fetched, else the project's). */
  fileSystem: TaskFileSystem | null = null;
  /** `bash.gold-run` = `eval-sandbox-reset-each-score`: the evaluation sandbox kept across episodes, and its root. */
  private evalSandbox: { root: string; ic: IntercodeExecutor } | null = null;

  constructor(options: EnvironmentOptions = {}) {
    super(options);
  }

  async reset(task: Task): Promise<{ observation: string }> {
    if (task.env !== "bash") throw new BadInputError(`a ${task.env} task cannot run in the bash environment`, "task");
    this.nowMs = fsClock();
    const fs = taskFileSystem(task);
    const hostDir = fs.source === "intercode" ? intercodeFsDir(fs.number!) : await fileSystemAt(task.fs, this.nowMs);
    this.fileSystem = fs;
    const perAction = profileValue(this.profile, "bash.executor") === "bash-c-shlex-per-action";
    const keep = profileValue(this.profile, "bash.between-episodes") === "git-reset-same-sandbox";
    if (keep && (await this.continueInSandbox(task, hostDir === this.hostDir))) return { observation: task.query };
    this.retire();
    this.hostDir = hostDir;
    const executor = perAction ? { env: intercodeEnv(fs.number ?? fsNumberOf(task.fs)), wrap: "bash-c" as const } : undefined;
    const sandbox = await this.begin(task, () => openFsSandbox(this.hostDir, this.options), "/", undefined, executor);
    if (this.ic) await this.ic.prepareAsImage();
    // InterCode reset its container before every episode, the first too.
    if (this.ic && keep) await this.ic.resetContainer();
    // Start gold early; its result is cached for the task.
    if (profileValue(this.profile, "bash.gold-run") === "fresh-sandbox-once") goldFor(task, this.hostDir, sandbox, this.options).catch(() => {});
    return { observation: task.query };
  }

  /** The evaluation sandbox over the current root, reset with git (InterCode's container_eval). */
  private async evalExecutor(task: BashTask): Promise<IntercodeExecutor> {
    if (this.evalSandbox && this.evalSandbox.root !== this.hostDir) {
      const old = this.evalSandbox.ic.sandbox;
      this.evalSandbox = null;
      await old.close().catch(() => undefined);
    }
    if (!this.evalSandbox) {
      const sandbox = await openFsSandbox(this.hostDir, this.options);
      const ic = new IntercodeExecutor(sandbox, { env: intercodeEnv(this.fileSystem?.number ?? fsNumberOf(task.fs)), home: "/", wrap: "bash-c" });
      await ic.prepareAsImage();
      this.evalSandbox = { root: this.hostDir, ic };
    }
    await this.evalSandbox.ic.resetContainer();
    return this.evalSandbox.ic;
  }

  /** A score as InterCode's get_reward computed it (rows bash.gold-run and bash.reward-status, intercode side). */
  private async evaluateAsIntercode(task: BashTask): Promise<SubmitResult> {
    const evalIc = await this.evalExecutor(task);
    const gold = Array.isArray(task.gold) ? task.gold.join(";") : task.gold;
    const goldRun = await evalIc.system(gold);
    // Output InterCode could not decode left its gold observation unset (a "corrupt gold").
    const goldObservation = goldRun.malformed && !goldRun.timedOut ? null : goldRun.observation;
    const agentIc = this.ic ?? new IntercodeExecutor(this.live().sandbox, { env: intercodeEnv(this.fileSystem?.number), home: "/", wrap: "bash-c" });
    const [agent, goldSnap] = [await agentIc.snapshot(), await evalIc.snapshot()];
    const { reward, breakdown } = bashReward({
      agentStatus: agent.status,
      goldStatus: goldSnap.status,
      agentHashes: agent.hashes,
      goldHashes: goldSnap.hashes,
      agentObservation: this.lastObservation,
      goldObservation,
    });
    return { reward, breakdown, goldObservation: goldObservation ?? "", agentObservation: this.lastObservation };
  }

  async step(action: string, options: StepOptions = {}): Promise<StepResult> {
    this.live();
    if (parseSubmit(action)) {
      const submitted = await this.submit();
      return { observation: submitted.agentObservation, ok: true, done: true, submitted };
    }
    return this.runAction(action, options);
  }

  async evaluate(): Promise<SubmitResult> {
    const { sandbox, task } = this.live();
    if (profileValue(this.profile, "bash.gold-run") === "eval-sandbox-reset-each-score") return this.evaluateAsIntercode(task);
    const [gold, agent] = await Promise.all([goldFor(task, this.hostDir, sandbox, this.options), snapshotTestbed(sandbox)]);
    const { reward, breakdown } = scoreBash(this.lastObservation, gold.output, agent, gold.snapshot);
    return { reward, breakdown, goldObservation: gold.output, agentObservation: this.lastObservation };
  }

  async submit(): Promise<SubmitResult> {
    const result = await this.evaluate();
    this.done = true;
    return result;
  }

  async close(): Promise<void> {
    const ev = this.evalSandbox;
    this.evalSandbox = null;
    await Promise.all([super.close(), ev?.ic.sandbox.close().catch(() => undefined)]);
  }
}

/** The InterCode file system number a task's `fs` names ("fs3" → 3), if any. */
function fsNumberOf(fs: string): 1 | 2 | 3 | 4 | undefined {
  const m = /^fs([1-4])$/.exec(fs);
  return m ? (Number(m[1]) as 1 | 2 | 3 | 4) : undefined;
}

/** Scores an agent against gold with lib/reward/bash. */
export function scoreBash(agentObs: string, goldObs: string, agent: FsSnapshot, gold: FsSnapshot): { reward: number; breakdown: BashBreakdown } {
  return bashReward({
    agentStatus: agent.status,
    goldStatus: gold.status,
    agentHashes: agent.hashes,
    goldHashes: gold.hashes,
    agentObservation: agentObs,
    goldObservation: goldObs,
  });
}

/** Starts a bash environment (call reset to begin an episode). */
export function createBashEnvironment(options: EnvironmentOptions = {}): BashEnvironment {
  return new BashEnvironment(options);
}
