import type { Task } from "@/lib/datasets/types";
import type { PolicyName } from "./policies/types";
import { FENCE_LANGUAGE } from "./policies/prompts";
import type { Fault, Script, ScriptRule } from "./scripted-server";

/**
 * Ready-made scripts for the scripted server: a model that solves a task with its gold solution,
 * one that answers wrongly, one that never gives an action. Used by the tests, the benchmark and
 * the end-to-end suite; the replies follow each policy's reply format.
 */

/** The gold solution as one action. */
export function goldAction(task: Task): string {
  switch (task.env) {
    case "sql":
    case "python":
      return task.gold;
    case "bash":
      return Array.isArray(task.gold) ? task.gold.join(" ; ") : task.gold;
    case "ctf":
      return task.solution ?? "ls";
  }
}

/** An action that runs but does not solve the task. */
export function wrongAction(task: Task): string {
  switch (task.env) {
    case "sql":
      return "SELECT 'not the answer'";
    case "bash":
      return "echo not the answer";
    case "python": {
      const fn = task.functionName ?? "f";
      return `def ${fn}(*args, **kwargs):\n    return None`;
    }
    case "ctf":
      return "echo not the answer";
  }
}

function fenced(task: Task, action: string): string {
  return "```" + FENCE_LANGUAGE[task.env] + "\n" + action + "\n```";
}

/** The final "submit" as the policy expects it (with the flag or function name when needed). */
function submitAction(task: Task, solved: boolean): string {
  if (task.env === "ctf") return `submit ${solved ? task.gold : "wrong{flag}"}`;
  if (task.env === "python") return `submit ${task.functionName ?? ""}`.trim();
  return "submit";
}

/** Formats an action as a reply in the policy's style. */
export function replyFor(policy: PolicyName, task: Task, action: string, thought = "Next I run this."): string {
  if (policy === "react") return action.includes("\n") ? `Thought: ${thought}\nAction:\n${fenced(task, action)}` : `Thought: ${thought}\nAction: ${action}`;
  return `${thought}\n${fenced(task, action)}`;
}

export type Scenario = "solve" | "wrong" | "no-action";

/**
 * The replies of a scripted model for one task under one policy.
 * - solve: (a wrong try first, except under Single Turn) then the gold action, then submit.
 * - wrong: a wrong action, then submit.
 * - no-action: a reply without any action, then as "solve".
 */
export function scriptedReplies(policy: PolicyName, task: Task, scenario: Scenario): string[] {
  const plan = "1. Inspect what is there.\n2. Run the solution.";
  const out: string[] = [];
  if (policy === "plan-solve") out.push(scenario === "wrong" ? "1. Give an answer." : plan);
  if (scenario === "no-action") out.push("I am thinking about the problem, but I have no command to run yet.");
  if (scenario === "wrong") {
    out.push(policy === "single-turn" && task.env === "ctf" ? replyFor(policy, task, "submit wrong{flag}") : replyFor(policy, task, wrongAction(task)));
    out.push(replyFor(policy, task, submitAction(task, false), "I am done."));
    return out;
  }
  if (policy === "single-turn") {
    out.push(replyFor(policy, task, task.env === "ctf" ? submitAction(task, true) : goldAction(task)));
    return out;
  }
  if (policy === "plan-solve") {
    out.push(replyFor(policy, task, task.env === "ctf" ? goldAction(task) : wrongAction(task)));
    out.push(replyFor(policy, task, task.env === "ctf" ? submitAction(task, true) : goldAction(task)));
    return out;
  }
  out.push(replyFor(policy, task, wrongAction(task), "Let me try something first."));
  out.push(replyFor(policy, task, goldAction(task), "Now the real solution."));
  out.push(replyFor(policy, task, submitAction(task, true), "That should be it."));
  return out;
}

/** A rule matching a task by its query. */
export function ruleFor(task: Task, replies: string[], faults?: Fault[]): ScriptRule {
  return { match: task.query, replies, faults };
}

/** A script in which every task is solved by its gold solution, instantly. */
export function goldScript(policy: PolicyName, tasks: Task[]): Script {
  return { rules: tasks.map((t) => ruleFor(t, scriptedReplies(policy, t, "solve"))) };
}
