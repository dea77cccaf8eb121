import "server-only";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PythonTask, Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { pythonReward } from "@/lib/reward/python";
import type { TestOutcome } from "@/lib/reward/types";
import type { Sandbox, SandboxProcess } from "@/lib/sandbox/types";
import { observationOf } from "./shell-episode";
import { exchange, type FrameMarks } from "./framed";
import { parseSubmit } from "@/lib/env/submit";
import { DEFAULT_PROFILE, profileValue, type ProfileName } from "./profiles";
import { openSandbox } from "./sandbox";
import type { Environment, EnvironmentOptions, StepOptions, StepResult, SubmitResult } from "./types";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The driver (a read-eval-print loop speaking a framed protocol) and the hidden-test runner. */
const DRIVER = readFileSync(path.join(HERE, "python-driver.py"), "utf8");
const TEST_RUNNER = readFileSync(path.join(HERE, "python-tests.py"), "utf8");

/** Where Python episodes run. */
export const PYTHON_WORKDIR = "/tmp";

/** The note shown when the interpreter died or had to be killed, losing its variables. */
export const RESTART_NOTE = "\n[the interpreter was restarted; variables and functions defined so far are gone]";

export interface TestRun {
  outcome: TestOutcome;
  detail?: string;
}

/**
 * Runs hidden tests in a fresh interpreter (python -I, its own process) in `sandbox`: the prelude
 * cells, then the task's setup code, then each test against `fn` (bound to the name the tests call).
 */
export async function runHiddenTests(
  sandbox: Sandbox,
  args: { prelude: string[]; setup: string; tests: string[]; fn: string; target: string; strictPrelude?: boolean },
): Promise<TestRun[]> {
  const input = JSON.stringify({
    prelude: args.prelude,
    setup: args.setup,
    tests: args.tests,
    function: args.fn,
    target: args.target,
    strictPrelude: args.strictPrelude ?? false,
    perTestSeconds: 5,
  });
  const r = await sandbox.exec(["python3", "-I", "-c", TEST_RUNNER], {
    cwd: PYTHON_WORKDIR,
    stdin: input,
    timeoutMs: Math.max(30_000, args.tests.length * 6_000),
    maxOutputBytes: 4 * 1024 * 1024,
  });
  const at = r.stdout.lastIndexOf("\u001eICRESULT");
  if (at < 0) {
    const why = r.timedOut ? "the tests timed out" : `the test runner failed (exit ${r.exitCode}): ${r.output.slice(-300)}`;
    return args.tests.map(() => ({ outcome: "error" as const, detail: why }));
  }
  const parsed = JSON.parse(r.stdout.slice(at + "\u001eICRESULT".length)) as { results: TestRun[] };
  return parsed.results;
}

const goldCache = new Map<string, Promise<TestRun[]>>();

/** Gold's outcomes per test, run once per task and backend in a fresh sandbox. */
function goldOutcomes(task: PythonTask, backend: string, options: EnvironmentOptions): Promise<TestRun[]> {
  const key = `${backend}\0${task.dataset}\0${task.id}\0${task.gold}`;
  let hit = goldCache.get(key);
  if (!hit) {
    hit = (async () => {
      const sandbox = await openSandbox({ image: "python", workdir: PYTHON_WORKDIR }, options);
      try {
        const target = targetName(task);
        return await runHiddenTests(sandbox, { prelude: [task.gold], setup: task.setup, tests: task.tests, fn: target, target, strictPrelude: true });
      } finally {
        await sandbox.close();
      }
    })();
    hit.catch(() => goldCache.delete(key));
    goldCache.set(key, hit);
  }
  return hit;
}

/** As InterCode found a function's name: `def`, a name, then `(` with no space before it ("def f (x)" is skipped). */
const FIRST_DEF = /\bdef\s+([A-Za-z_]\w*)\(/;

/** The name of the first `def <name>(` in `code` (InterCode's reading of it), or null. */
export function firstDefName(code: string): string | null {
  return FIRST_DEF.exec(code)?.[1] ?? null;
}

/** The function name the task's tests call. */
export function targetName(task: PythonTask): string {
  if (!task.functionName)
    throw new BadInputError(
      `task ${task.dataset}/${task.id} names no function and none could be found in its tests`,
      `${task.dataset}/${task.id}: functionName`,
    );
  return task.functionName;
}

/**
 * The python environment: a persistent Python 3 interpreter per episode. An action is code; a bare
 * final expression is printed as a REPL would. `submit <function_name>` runs the task's hidden tests
 * against that function in a fresh interpreter and against the gold function; the reward is the
 * share of tests whose outcome agrees. The tests are never shown during the episode.
 */
export class PythonEnvironment implements Environment {
  readonly env = "python" as const;
  task: PythonTask | null = null;
  private sandbox: Sandbox | null = null;
  private proc: SandboxProcess | null = null;
  private nonce = "";
  private marks: FrameMarks | null = null;
  /** Cells that ran without error, replayed before the hidden tests. */
  private cells: string[] = [];
  /** The last action run (profile intercode scores the function it defined). */
  private lastAction = "";
  private done = false;
  private readonly profile: ProfileName;

  constructor(private readonly options: EnvironmentOptions = {}) {
    this.profile = options.profile ?? DEFAULT_PROFILE;
  }

  async reset(task: Task): Promise<{ observation: string }> {
    if (task.env !== "python") throw new BadInputError(`a ${task.env} task cannot run in the python environment`, "task");
    await this.close();
    this.task = task;
    this.done = false;
    this.cells = [];
    this.lastAction = "";
    this.sandbox = await openSandbox({ image: "python", workdir: PYTHON_WORKDIR }, this.options);
    this.startDriver();
    const r = await this.request({ code: "None" }, { timeoutMs: 15_000 });
    if (r.frame === null) throw new Error(`the Python interpreter did not start: ${r.output.slice(0, 500)}`);
    goldOutcomes(task, this.sandbox.backend, this.options).catch(() => {});
    return { observation: task.query };
  }

  private startDriver(): SandboxProcess {
    if (this.proc) return this.proc;
    this.nonce = randomBytes(8).toString("hex");
    this.marks = { frameStart: `\u0000IC${this.nonce}F\u0000`, frameEnd: `\u0000IC${this.nonce}Z\u0000`, errMark: `\u0000IC${this.nonce}E\u0000` };
    const proc = this.sandbox!.spawn(["python3", "-I", "-u", "-c", DRIVER, this.nonce], { cwd: PYTHON_WORKDIR });
    this.proc = proc;
    proc.exited.then(() => {
      if (this.proc === proc) this.proc = null;
    });
    return proc;
  }

  private async request(req: Record<string, unknown>, o: { timeoutMs?: number; onOutput?: (c: string) => void; signal?: AbortSignal } = {}) {
    const sandbox = this.sandbox!;
    const proc = this.startDriver();
    const body = Buffer.from(JSON.stringify(req), "utf8");
    const r = await exchange(proc, Buffer.concat([Buffer.from(`${body.length}\n`), body]), this.marks!, {
      timeoutMs: o.timeoutMs ?? sandbox.limits.timeoutMs,
      maxOutputBytes: sandbox.limits.outputBytes,
      onOutput: o.onOutput,
      signal: o.signal,
      interrupt: () => {
        proc.kill("SIGINT");
        sandbox.killStrays().catch(() => {});
      },
      kill: () => {
        if (this.proc === proc) this.proc = null;
        proc.kill("SIGKILL");
      },
      graceMs: 500,
    });
    const result = r.frame !== null ? (JSON.parse(r.frame) as { ok: boolean; error?: string; source?: string }) : null;
    return { ...r, result };
  }

  private live(): { sandbox: Sandbox; task: PythonTask } {
    if (!this.sandbox || !this.task) throw new BadInputError("the episode has not started (call reset first)", "episode");
    if (this.done) throw new BadInputError("the episode has ended (it was submitted)", "episode");
    return { sandbox: this.sandbox, task: this.task };
  }

  async step(action: string, options: StepOptions = {}): Promise<StepResult> {
    const { sandbox } = this.live();
    const submit = parseSubmit(action);
    if (submit) {
      const submitted = await this.submit(submit.arg);
      return { observation: submitted.agentObservation, ok: true, done: true, submitted };
    }
    this.lastAction = action;
    if (profileValue(this.profile, "python.turn") === "def-as-written-else-print") return this.stepAsInterCode(action, options);
    const r = await this.request({ code: action }, { onOutput: options.onOutput, signal: options.signal });
    let observation = observationOf(r, sandbox.limits);
    if (r.died) {
      observation += RESTART_NOTE;
      this.cells = [];
    }
    const ok = Boolean(r.result?.ok) && !r.timedOut && !r.aborted;
    if (ok) this.cells.push(action);
    return {
      observation,
      ok,
      done: false,
      ...(r.timedOut ? { timedOut: true } : {}),
      ...(r.truncated ? { truncated: true } : {}),
      ...(r.aborted ? { aborted: true } : {}),
    };
  }

  /** Profile intercode: a `def` runs as written, anything else inside print(...); the observation is str() of the result dict. */
  private async stepAsInterCode(action: string, options: StepOptions): Promise<StepResult> {
    const { sandbox } = this.live();
    const isDef = action.trimStart().startsWith("def");
    const r = await this.request({ op: "ic-exec", code: isDef ? action : `print(${action})`, parseFirst: !isDef }, { signal: options.signal });
    const result = r.result as { ok: boolean; observation?: string } | null;
    let observation = result?.observation ?? observationOf(r, sandbox.limits);
    if (r.died) observation += RESTART_NOTE;
    const ok = Boolean(result?.ok) && !r.timedOut && !r.aborted;
    return { observation, ok, done: false, ...(r.timedOut ? { timedOut: true } : {}), ...(r.aborted ? { aborted: true } : {}) };
  }

  /**
   * Profile intercode's score of the last action: 0 untested unless it starts with `def`; else the
   * function its first `def` defined is bound to the gold's first `def` name and tested in this
   * interpreter, which is then reset to fresh globals, the setup code and the gold.
   */
  private async scoreAsInterCode(redact: boolean): Promise<SubmitResult> {
    const { sandbox, task } = this.live();
    const fn = this.lastAction.trimStart().startsWith("def") ? firstDefName(this.lastAction) : null;
    const gold = await goldOutcomes(task, sandbox.backend, this.options);
    const target = firstDefName(task.gold) ?? targetName(task);
    let agent: TestRun[];
    if (fn === null) {
      agent = task.tests.map(() => ({ outcome: "error" as const, detail: "the scored action does not define a function" }));
    } else {
      const r = await this.request(
        { op: "ic-score", fn, target, tests: task.tests, setup: task.setup, gold: task.gold, perTestSeconds: 5 },
        { timeoutMs: Math.max(30_000, task.tests.length * 6_000) },
      );
      const got = (r.result as { results?: TestRun[] } | null)?.results;
      agent = got ?? task.tests.map(() => ({ outcome: "error" as const, detail: r.timedOut ? "the tests timed out" : "the tests did not run" }));
    }
    const { reward, breakdown } = pythonReward({
      functionName: fn ?? "",
      tests: task.tests.map((t, i) => ({ test: t, gold: gold[i]!.outcome, agent: agent[i]!.outcome, detail: agent[i]!.detail })),
      ...(fn === null ? { error: "the scored action does not define a function (scored 0)" } : {}),
    });
    const scored =
      fn === null ? { reward: 0, breakdown: { ...breakdown, tests: breakdown.tests.map((t) => ({ ...t, agree: false })) } } : { reward, breakdown };
    return { reward: scored.reward, breakdown: redactTests(scored.breakdown, redact), goldObservation: task.gold, agentObservation: this.lastAction };
  }

  /** Scores `fn` (default: the name the tests call). `redact` hides the test text (mid-episode evaluation). */
  private async score(fn: string | undefined, redact: boolean): Promise<SubmitResult> {
    if (profileValue(this.profile, "python.scored-function") === "last-def-bound-to-gold-name") return this.scoreAsInterCode(redact);
    const { sandbox, task } = this.live();
    const target = targetName(task);
    const name = (fn ?? "").trim() || target;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new BadInputError(`not a function name: ${JSON.stringify(name)}`, "submit");
    const [gold, agent, src] = await Promise.all([
      goldOutcomes(task, sandbox.backend, this.options),
      runHiddenTests(sandbox, { prelude: this.cells, setup: task.setup, tests: task.tests, fn: name, target }),
      this.request({ op: "source", name }, { timeoutMs: 5_000 }),
    ]);
    const { reward, breakdown } = pythonReward({
      functionName: name,
      tests: task.tests.map((t, i) => ({ test: t, gold: gold[i]!.outcome, agent: agent[i]!.outcome, detail: agent[i]!.detail })),
    });
    const agentObservation = src.result?.source || (src.result?.ok === false ? `${src.result.error}` : name);
    return { reward, breakdown: redactTests(breakdown, redact), goldObservation: task.gold, agentObservation };
  }

  evaluate(arg?: string): Promise<SubmitResult> {
    return this.score(arg, true);
  }

  async submit(arg?: string): Promise<SubmitResult> {
    const r = await this.score(arg, false);
    this.done = true;
    return r;
  }

  async close(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    p?.kill("SIGKILL");
    const s = this.sandbox;
    this.sandbox = null;
    await s?.close();
  }
}

/**
 * Hides the tests' text (mid-episode evaluation) after scoring, so a test listed twice still
 * counts once (the reward keys tests by their text).
 */
function redactTests<B extends { tests: { test: string }[] }>(breakdown: B, redact: boolean): B {
  return redact ? { ...breakdown, tests: breakdown.tests.map((t, i) => ({ ...t, test: `test ${i + 1}` })) } : breakdown;
}

/** Starts a python environment (call reset to begin an episode). */
export function createPythonEnvironment(options: EnvironmentOptions = {}): PythonEnvironment {
  return new PythonEnvironment(options);
}
