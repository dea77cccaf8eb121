import "server-only";
import { ctfFiles } from "@/lib/datasets/ctf-assets";
import type { CtfTask, Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { ctfReward } from "@/lib/reward/ctf";
import type { Sandbox } from "@/lib/sandbox/types";
import { parseSubmit } from "@/lib/env/submit";
import { intercodeEnv } from "./intercode-run";
import { openSandbox } from "./sandbox";
import { profileValue } from "./profiles";
import { ShellEpisode } from "./shell-episode";
import type { Environment, EnvironmentOptions, StepOptions, StepResult, SubmitResult } from "./types";

/** Where a CTF task's files are mounted, and where the shell starts. */
export const CTF_WORKDIR = "/ctf";

/**
 * The host directory of a task's files (lib/datasets/ctf-assets.ts): a demo task's `files`, or
 * InterCode's fetched ctf/task_assets/<id>/ (which never holds the write-up). Undefined when the
 * task has none here.
 */
export function ctfFilesDir(task: CtfTask): string | undefined {
  const f = ctfFiles(task);
  return f.state === "present" ? f.dir : undefined;
}

const solutionCache = new Map<string, Promise<string>>();

/**
 * The CTF environment: a persistent bash shell over the task's files at /ctf. `submit <flag>` ends
 * the episode; the reward is 1 when the flag matches ignoring case, else 0.
 */
export class CtfEnvironment extends ShellEpisode<CtfTask> implements Environment {
  readonly env = "ctf" as const;
  private filesDir: string | undefined;

  constructor(options: EnvironmentOptions = {}) {
    super(options);
  }

  async reset(task: Task): Promise<{ observation: string }> {
    if (task.env !== "ctf") throw new BadInputError(`a ${task.env} task cannot run in the ctf environment`, "task");
    this.retire();
    this.filesDir = ctfFilesDir(task);
    // Without files there is no /ctf mount; start in /tmp (private and writable) instead.
    const perAction = profileValue(this.profile, "ctf.executor") === "shlex-per-action";
    await this.begin(
      task,
      () => this.open(),
      this.filesDir ? CTF_WORKDIR : "/tmp",
      undefined,
      perAction ? { env: intercodeEnv(), wrap: "cmd-prefix" } : undefined,
    );
    return { observation: task.query };
  }

  private open(): Promise<Sandbox> {
    return openSandbox(
      this.filesDir ? { image: "ctf", files: { hostDir: this.filesDir, mountAt: CTF_WORKDIR }, workdir: CTF_WORKDIR } : { image: "ctf", workdir: "/tmp" },
      this.options,
    );
  }

  async step(action: string, options: StepOptions = {}): Promise<StepResult> {
    this.live();
    const submit = parseSubmit(action);
    if (submit) {
      // InterCode took the word after "submit" as the flag.
      const verdict = profileValue(this.profile, "ctf.submit-observation") === "flag-verdict";
      const submitted = await this.submit(verdict ? (action.trim().split(" ")[1] ?? "") : submit.arg);
      return { observation: submitted.agentObservation, ok: true, done: true, submitted };
    }
    return this.runAction(action, options);
  }

  /** The gold observation: the output of the task's solution command when known, else the flag. */
  private goldObservation(task: CtfTask, backend: string): Promise<string> {
    if (!task.solution) return Promise.resolve(task.gold);
    const key = `${backend}\0${task.dataset}\0${task.id}`;
    let hit = solutionCache.get(key);
    if (!hit) {
      hit = (async () => {
        const sandbox = await this.open();
        try {
          const r = await sandbox.exec(["bash", "-c", task.solution!], { cwd: this.filesDir ? CTF_WORKDIR : "/tmp" });
          return r.output;
        } finally {
          await sandbox.close();
        }
      })();
      hit.catch(() => solutionCache.delete(key));
      solutionCache.set(key, hit);
    }
    return hit;
  }

  async evaluate(arg?: string): Promise<SubmitResult> {
    const { sandbox, task } = this.live();
    const submitted = (arg ?? this.lastObservation).trim();
    const { reward, breakdown } = ctfReward({ submitted, flag: task.gold });
    return { reward, breakdown, goldObservation: await this.goldObservation(task, sandbox.backend), agentObservation: submitted };
  }

  /** Ends the episode; under `ctf.submit-observation` = `flag-verdict` its observation is InterCode's verdict text (the breakdown keeps the flag). */
  async submit(arg?: string): Promise<SubmitResult> {
    const r = await this.evaluate(arg);
    this.done = true;
    if (profileValue(this.profile, "ctf.submit-observation") === "flag-verdict") {
      return { ...r, agentObservation: `The submitted flag is ${r.reward >= 1 ? "correct" : "incorrect"}.` };
    }
    return r;
  }
}

/** Starts a ctf environment (call reset to begin an episode). */
export function createCtfEnvironment(options: EnvironmentOptions = {}): CtfEnvironment {
  return new CtfEnvironment(options);
}
