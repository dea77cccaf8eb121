import "server-only";
import { fileSystemAt, fsClock } from "@/lib/datasets/bash-fs";
import { intercodeFsDir, taskFileSystem, type TaskFileSystem } from "@/lib/datasets/intercode-fs";
import type { BashTask, Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { bashReward } from "@/lib/reward/bash";
import type { BashBreakdown } from "@/lib/reward/types";
import { getSandboxBackend } from "@/lib/sandbox";
import { resolveLimits } from "@/lib/sandbox/limits";
import type { Sandbox } from "@/lib/sandbox/types";
import { determineGold, openGoldSeat, planGold, runGold, type GoldPlan, type GoldRunContext, type GoldSeat } from "./bash-gold";
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

/** Opens a sandbox over the host tree `hostDir` (it becomes the sandbox's root, a private copy), on the profile's image (row `bash.image`). */
export async function openFsSandbox(hostDir: string, options: EnvironmentOptions): Promise<Sandbox> {
  const image = profileValue(options.profile ?? DEFAULT_PROFILE, "bash.image");
  return openSandbox({ image, files: { hostDir, mountAt: FS_MOUNT }, workdir: "/" }, options);
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
  /** `bash.gold-run` = `cached-if-deterministic-else-fresh-sandbox`: where gold runs at the next score (opening). */
  private goldSeat: Promise<GoldSeat> | null = null;
  /** How this episode's scores get gold: from the cache, or run in a seat (lib/env/bash-gold.ts). */
  private goldPlan: Promise<GoldPlan> | null = null;
  /** Gold checks this environment started (close waits for them). */
  private readonly checking = new Set<Promise<unknown>>();
  /** Where the last score's gold came from (benchmarks report it). */
  lastGoldFrom: "cache" | "seat" | "eval-sandbox" | null = null;

  constructor(options: EnvironmentOptions = {}) {
    super(options);
  }

  async reset(task: Task): Promise<{ observation: string }> {
    if (task.env !== "bash") throw new BadInputError(`a ${task.env} task cannot run in the bash environment`, "task");
    this.nowMs = fsClock();
    const fs = taskFileSystem(task);
    const hostDir = await hostDirOf(task, fs, this.nowMs);
    this.fileSystem = fs;
    const perAction = profileValue(this.profile, "bash.executor") === "bash-c-shlex-per-action";
    const keep = profileValue(this.profile, "bash.between-episodes") === "git-reset-same-sandbox";
    if (keep && (await this.continueInSandbox(task, hostDir === this.hostDir))) return { observation: task.query };
    this.retire();
    this.hostDir = hostDir;
    const executor = perAction ? { env: intercodeEnv(fs.number ?? fsNumberOf(task.fs)), wrap: "bash-c" as const } : undefined;
    // How the scores get gold is looked up beside the reset; a seat, if gold needs one, opens with
    // the first action (see step), not here.
    this.goldPlan = this.seatsGold() ? this.planFor(task, fs, hostDir) : null;
    try {
      await this.begin(task, () => openFsSandbox(this.hostDir, this.options), "/", undefined, executor);
      if (this.ic) await this.ic.prepareAsImage();
      // InterCode reset its container before every episode, the first too.
      if (this.ic && keep) await this.ic.resetContainer();
    } catch (err) {
      void this.dropGoldSeat();
      throw err;
    }
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
    // A gold that runs at the score gets its seat opened with the first action after reset (or
    // after a score, if evaluate's is not open), and the action runs once it is ready, so a score
    // right after it runs gold within milliseconds of it. A cached gold needs no seat.
    if ((await this.goldPlan)?.kind === "seat") {
      this.seatGold();
      await this.goldSeat?.catch(() => undefined);
    }
    return this.runAction(action, options);
  }

  /** The plan for `task`'s scores; a gold not checked yet is checked in the background (its first use). */
  private async planFor(task: BashTask, fs: TaskFileSystem, hostDir: string): Promise<GoldPlan> {
    try {
      const ctx = await goldRunContext(fs, hostDir, this.options);
      return await planGold(task, ctx, (fingerprint) => {
        const check = determineGold(task, ctx, fingerprint, () => openFsSandbox(hostDir, this.options)).catch(() => undefined);
        this.checking.add(check);
        void check.finally(() => this.checking.delete(check));
      });
    } catch (err) {
      return { kind: "seat", reason: `the plan failed: ${(err as Error).message}` };
    }
  }

  /** Whether gold runs in a seat of its own at each score (row `bash.gold-run`, studio side). */
  private seatsGold(): boolean {
    return profileValue(this.profile, "bash.gold-run") === "cached-if-deterministic-else-fresh-sandbox";
  }

  /** Opens where gold runs at the next score, unless it is open or opening. */
  private seatGold(): void {
    if (this.goldSeat || !this.seatsGold()) return;
    const seat = openGoldSeat(() => openFsSandbox(this.hostDir, this.options));
    // A failure to open is reported by the score that needs the seat.
    seat.catch(() => undefined);
    this.goldSeat = seat;
  }

  /** Takes the open seat (or opens one now); the caller closes it. */
  private async takeGoldSeat(): Promise<GoldSeat> {
    const seat = this.goldSeat;
    this.goldSeat = null;
    return (seat && (await seat.catch(() => null))) || openGoldSeat(() => openFsSandbox(this.hostDir, this.options));
  }

  /** Closes the seat of an episode that ends without a score (retire goes on without waiting for it). */
  private dropGoldSeat(): Promise<void> {
    const seat = this.goldSeat;
    this.goldSeat = null;
    return seat ? seat.then((s) => s.sandbox.close()).catch(() => undefined) : Promise.resolve();
  }

  protected override retire(): void {
    void this.dropGoldSeat();
    super.retire();
  }

  /** Scores the episode as it stands (Try Again scores every turn); the episode goes on. */
  async evaluate(): Promise<SubmitResult> {
    const result = await this.score();
    // The episode goes on: a gold run at the score gets its next seat while the agent works on its next action.
    if ((await this.goldPlan)?.kind === "seat") this.seatGold();
    return result;
  }

  private async score(): Promise<SubmitResult> {
    const { sandbox, task } = this.live();
    if (profileValue(this.profile, "bash.gold-run") === "eval-sandbox-reset-each-score") {
      this.lastGoldFrom = "eval-sandbox";
      return this.evaluateAsIntercode(task);
    }
    const plan = await this.goldPlan;
    this.lastGoldFrom = plan?.kind === "cached" ? "cache" : "seat";
    if (plan?.kind === "cached") {
      const { output, snapshot } = plan.gold;
      const { reward, breakdown } = scoreBash(this.lastObservation, output, await snapshotTestbed(sandbox), snapshot);
      return { reward, breakdown, goldObservation: output, agentObservation: this.lastObservation };
    }
    const seat = await this.takeGoldSeat();
    try {
      const [gold, agent] = await Promise.all([runGold(task, seat), snapshotTestbed(sandbox)]);
      const { reward, breakdown } = scoreBash(this.lastObservation, gold.output, agent, gold.snapshot);
      return { reward, breakdown, goldObservation: gold.output, agentObservation: this.lastObservation };
    } finally {
      seat.sandbox.close().catch(() => undefined);
    }
  }

  async submit(): Promise<SubmitResult> {
    const result = await this.score();
    this.done = true;
    return result;
  }

  async close(): Promise<void> {
    const ev = this.evalSandbox;
    this.evalSandbox = null;
    await Promise.all([this.dropGoldSeat(), super.close(), ev?.ic.sandbox.close().catch(() => undefined), ...this.checking]);
  }
}

/** The host tree a task's sandboxes copy (InterCode's own once fetched, else the project's with its times for `nowMs`). */
export function hostDirOf(task: BashTask, fs: TaskFileSystem, nowMs: number): Promise<string> {
  return fs.source === "intercode" ? Promise.resolve(intercodeFsDir(fs.number!)) : fileSystemAt(task.fs, nowMs);
}

/** What gold's runs depend on under `options` (the fingerprint of its cache). */
async function goldRunContext(fs: TaskFileSystem, hostDir: string, options: EnvironmentOptions): Promise<GoldRunContext> {
  const backend = (await getSandboxBackend(options.backend ?? "auto")).kind;
  const { timeoutMs, outputBytes } = resolveLimits(options.limits);
  return { fs, hostDir, backend, image: profileValue(options.profile ?? DEFAULT_PROFILE, "bash.image"), limits: { timeoutMs, outputBytes } };
}

/**
 * Checks the golds of bash tasks ahead of their first use (a task set just fetched, a benchmark's
 * tasks): each gold the screen lets through and no verdict covers yet runs twice (determineGold),
 * `concurrency` at a time. Returns how many will be read from the cache and how many run at the score.
 */
export async function checkBashGolds(tasks: BashTask[], options: EnvironmentOptions = {}, concurrency = 1): Promise<{ cached: number; atScore: number }> {
  const counts = { cached: 0, atScore: 0 };
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      const fs = taskFileSystem(task);
      const hostDir = await hostDirOf(task, fs, fsClock());
      const ctx = await goldRunContext(fs, hostDir, options);
      const started: { check?: Promise<GoldPlan> } = {};
      let plan = await planGold(task, ctx, (fingerprint) => {
        started.check = determineGold(task, ctx, fingerprint, () => openFsSandbox(hostDir, options));
      });
      if (started.check) plan = await started.check.catch(() => plan);
      counts[plan.kind === "cached" ? "cached" : "atScore"]++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return counts;
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
