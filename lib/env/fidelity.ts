/**
 * What differs between the four environments in the loops that play, replay and gold-check an
 * episode (lib/agent/run-episode.ts, lib/replay/replay-check.ts, lib/cli/commands/gold-check.ts,
 * lib/replay/gold-output.ts): one row an environment, read by those loops instead of branches on
 * the task's environment, so that one screen shows every such rule. Where a rule also differs
 * between profiles, its row reads the profile table (./profiles.ts). Client-safe: pure functions.
 */
import { envNameSchema, type EnvName, type Task } from "@/lib/datasets/types";
import { DEFAULT_PYTHON_FEEDBACK, detectPythonFeedback, rewrittenPythonObservation, type PythonFeedbackWording } from "./intercode-loop";
import { profileValue, type ProfileName } from "./profiles";
import type { StepResult, SubmitResult } from "./types";

/**
 * How a scored turn of a model's loop is scored. `none`: it is not (a CTF turn has no score short
 * of a flag); `state`: evaluate() of the state the action left; `defined-function`: the function
 * the episode last defined is tested, and an action that defines none is scored only where
 * `python.scored-function` says every turn is.
 */
export type TurnScoring = "none" | "state" | "defined-function";

/** Gold played as an agent would play it: an action to run first (if any), then a submit. */
export interface GoldPlay {
  action?: string;
  /** When set, an action that fails ends the check with this reason (and its output). */
  failure?: string;
  /** The submit's argument, from the action's step when one ran. */
  submitArg(step: StepResult | undefined): string | undefined;
}

export interface EnvFidelity {
  /** The functions an action defines at top level, in order (the ones a score can test). */
  definedFunctions(action: string): string[];
  /** The function a turn that defines `defined` leaves to be tested: the task's own name if defined, else the last. */
  testedFunction(task: Task, defined: string[]): string | undefined;
  /** What `submit` is called with: the player's argument, else what the environment needs by default. */
  submitArg(task: Task, explicit: string | undefined, lastFunction: string | undefined): string | undefined;
  turnScoring: TurnScoring;
  /** Under `defined-function`: a turn that defines no function is scored too (it tests what the name holds: `python.scored-function`). */
  scoresTurnWithoutFunction(profile: ProfileName): boolean;
  /** The model is told whether the hidden tests pass instead of a turn's reward. */
  showsTestVerdict: boolean;
  /** A submit's stored observation is the environment's verdict on the flag (`ctf.submit-observation`). */
  flagVerdict(profile: ProfileName): boolean;
  /** A wrong flag is a turn and the episode goes on (`ctf.wrong-flag`). */
  wrongFlagContinues(profile: ProfileName): boolean;
  /** Logged actions read `cmd <command>` (`ctf.action-format`). */
  cmdWrapper(profile: ProfileName): boolean;
  /**
   * The wording a scored turn's observation is rewritten to under `policy`, or null when the loop
   * kept the environment's observation (`python.try-again-feedback`). `observations`: a logged
   * episode's, to find the wording its run used.
   */
  feedbackWording(profile: ProfileName, policy: string | null, observations?: readonly string[]): PythonFeedbackWording | null;
  /** A scored turn's observation as rewritten to `wording`, or null when it is kept. */
  rewrittenObservation(wording: PythonFeedbackWording, score: SubmitResult, task: Task): string | null;
  /** A replay scores the recording's last turn for the episode's reward (not where the score would reset the state to gold: `python.after-score`). */
  replayScoresLastTurn(profile: ProfileName): boolean;
  /**
   * An action's observation is a result set (SQL): an empty one is an answer (no rows), and the
   * engine's column names come from running it again.
   */
  resultSets: boolean;
  /** An observation in the form recordings are compared in (SQL: a model loop's row list unwrapped). */
  comparable(observation: string): string;
  /** Gold as the replay's disagreement categories read it: a shell command, or "". */
  goldCommand(task: Task): string;
  /** The environment's actions are shell commands (the categories read them). */
  shellActions: boolean;
  /**
   * A log's episodes on one file system replay one after another in one sandbox, reset between
   * them (`bash.between-episodes`), as InterCode's long-lived containers played them.
   */
  sharesSandboxAcrossEpisodes(profile: ProfileName): boolean;
  /** How gold-check plays the task's gold. */
  goldPlay(task: Task): GoldPlay;
  /** The submit argument that makes gold's output known at once (the viewer's gold panel). */
  goldRevealArg(task: Task): string | undefined;
}

const DEF_RE = /^def[ \t]+([A-Za-z_]\w*)[ \t]*\(/gm;

/** The functions Python code defines at top level, in order. */
export function definedFunctions(action: string): string[] {
  return [...action.matchAll(DEF_RE)].map((m) => m[1]!);
}

/**
 * InterCode's environment logs of SQL hold rows back to back, `(1, 'a')(2, 'b')`; its model loops
 * hold `str()` of the row list, `[(1, 'a'), (2, 'b')]`. For comparing the two, this turns the list
 * form into the other (a string value holding "), (" would be joined too: close enough to compare).
 */
export function unwrapRowList(s: string): string {
  const t = s.trim();
  if (t === "[]") return "";
  if (!t.startsWith("[(") || !t.endsWith(")]")) return s;
  return t.slice(1, -1).split("), (").join(")(");
}

/** What most environments do: the row every environment starts from. */
const COMMON: EnvFidelity = {
  definedFunctions: () => [],
  testedFunction: () => undefined,
  submitArg: () => undefined,
  turnScoring: "state",
  scoresTurnWithoutFunction: () => true,
  showsTestVerdict: false,
  flagVerdict: () => false,
  wrongFlagContinues: () => false,
  cmdWrapper: () => false,
  feedbackWording: () => null,
  rewrittenObservation: () => null,
  replayScoresLastTurn: () => true,
  resultSets: false,
  comparable: (o) => o,
  goldCommand: () => "",
  shellActions: false,
  sharesSandboxAcrossEpisodes: () => false,
  goldPlay: (task) => ({ action: Array.isArray(task.gold) ? task.gold.join(";") : task.gold, submitArg: () => undefined }),
  goldRevealArg: () => undefined,
};

function pythonTask(task: Task): Extract<Task, { env: "python" }> {
  if (task.env !== "python") throw new Error(`a python rule was asked about a ${task.env} task`);
  return task;
}

function ctfTask(task: Task): Extract<Task, { env: "ctf" }> {
  if (task.env !== "ctf") throw new Error(`a ctf rule was asked about a ${task.env} task`);
  return task;
}

export const ENV_FIDELITY: Record<EnvName, EnvFidelity> = {
  bash: {
    ...COMMON,
    goldCommand: (task) => (Array.isArray(task.gold) ? task.gold.join(";") : task.gold),
    shellActions: true,
    sharesSandboxAcrossEpisodes: (profile) => profileValue(profile, "bash.between-episodes") === "git-reset-same-sandbox",
  },
  sql: {
    ...COMMON,
    resultSets: true,
    comparable: unwrapRowList,
  },
  python: {
    ...COMMON,
    definedFunctions,
    testedFunction: (task, defined) => {
      const wanted = pythonTask(task).functionName;
      return wanted && defined.includes(wanted) ? wanted : defined[defined.length - 1];
    },
    submitArg: (task, explicit, lastFunction) => explicit ?? lastFunction ?? pythonTask(task).functionName,
    turnScoring: "defined-function",
    scoresTurnWithoutFunction: (profile) => profileValue(profile, "python.scored-function") === "last-def-bound-to-gold-name",
    showsTestVerdict: true,
    feedbackWording: (profile, policy, observations) =>
      policy?.startsWith("try-again") && profileValue(profile, "python.try-again-feedback") === "rewritten-test-feedback"
        ? ((observations && detectPythonFeedback(observations)) ?? DEFAULT_PYTHON_FEEDBACK)
        : null,
    rewrittenObservation: (wording, score, task) => rewrittenPythonObservation(wording, score, pythonTask(task).tests),
    replayScoresLastTurn: (profile) => profileValue(profile, "python.after-score") === "unchanged",
    goldPlay: (task) => ({ ...COMMON.goldPlay(task), failure: "gold code failed to run", submitArg: () => pythonTask(task).functionName }),
  },
  ctf: {
    ...COMMON,
    submitArg: (_task, explicit) => explicit ?? "",
    turnScoring: "none",
    flagVerdict: (profile) => profileValue(profile, "ctf.submit-observation") === "flag-verdict",
    wrongFlagContinues: (profile) => profileValue(profile, "ctf.wrong-flag") === "turn-and-continue",
    cmdWrapper: (profile) => profileValue(profile, "ctf.action-format") === "cmd-wrapper",
    shellActions: true,
    // With a known solution command, its output is the answer (this checks the task's files too).
    goldPlay: (task) => {
      const { solution, gold } = ctfTask(task);
      return solution ? { action: solution, failure: "the solution command failed", submitArg: (step) => step?.observation.trim() } : { submitArg: () => gold };
    },
    goldRevealArg: (task) => ctfTask(task).gold,
  },
};

/** The rules of `task`'s environment. */
export function fidelityOf(task: Pick<Task, "env">): EnvFidelity {
  return ENV_FIDELITY[task.env];
}

/** The rules of the environment a stored episode names (an unknown name has the common rules). */
export function fidelityOfEnv(env: string): EnvFidelity {
  const name = envNameSchema.safeParse(env);
  return name.success ? ENV_FIDELITY[name.data] : COMMON;
}
