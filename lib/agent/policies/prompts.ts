import type { EnvName, Task } from "@/lib/datasets/types";
import type { TurnFeedback } from "./types";

/**
 * Prompt pieces shared by the policies, one set per environment, written for InterCode Studio.
 * The wording is the project's own.
 */

/** Fence language the model is asked to use for actions. */
export const FENCE_LANGUAGE: Record<EnvName, string> = { sql: "sql", bash: "bash", python: "python", ctf: "bash" };

const SETTING: Record<EnvName, string> = {
  sql:
    "You are connected to a relational database. Each action you take is one SQL statement; the database runs it and " +
    "shows you the rows it returned, as tuples, or the error it raised. Explore the tables if you need to, then leave " +
    "the query that answers the question as your last action.",
  bash:
    "You are at a Bash prompt on a Linux machine, in /testbed. Each action you take is one shell command (pipes and " +
    "&& are fine); the shell keeps its working directory and variables between actions and shows you what the " +
    "command printed. Your last command's output, and any files you change, are what gets judged.",
  python:
    "You have an interactive Python 3 session. Each action you take is a piece of Python code run in that same " +
    "session; a bare expression has its value printed. Write the function the task describes, test it if you wish, " +
    "and submit it by name.",
  ctf:
    "This is a capture-the-flag challenge. You are at a Bash prompt in a directory holding the challenge's files, " +
    "with the usual command-line tools (and python3). Each action is one shell command. Somewhere in the challenge " +
    "is a flag, a string usually of the form picoCTF{...}: find it and submit it.",
};

const SUBMIT: Record<EnvName, string> = {
  sql: 'When the last query you ran answers the question, reply with "submit". Reply "skip" to give up.',
  bash: 'When you are done, reply with "submit". Reply "skip" to give up.',
  python: 'When your function is ready, reply with "submit <function_name>". Reply "skip" to give up.',
  ctf: 'When you have the flag, reply with "submit <flag>". Reply "skip" to give up.',
};

/** The environment's rules, for a system prompt. */
export function settingText(env: EnvName): string {
  return SETTING[env];
}

export function submitText(env: EnvName): string {
  return SUBMIT[env];
}

/** How to write an action in a fenced block. */
export function fenceInstruction(env: EnvName): string {
  const lang = FENCE_LANGUAGE[env];
  return `Put your action in a fenced code block, like this:\n\`\`\`${lang}\n...\n\`\`\`\nOne action per reply.`;
}

/** The task as the model first sees it, with the SQL schema when the handicap is on. */
export function taskText(task: Task, handicap: boolean): string {
  const lines = [`Task: ${task.query}`];
  if (task.env === "python" && task.functionName) lines.push(`The tests call a function named ${task.functionName}.`);
  if (handicap && task.env === "sql") {
    lines.push("", `Schema of database ${task.db} (table: columns):`);
    for (const [table, columns] of Object.entries(task.tables)) lines.push(`- ${table}: ${columns.join(", ")}`);
  }
  return lines.join("\n");
}

/** The text shown after a turn: observation, and the score when the policy shows it. */
export function feedbackText(env: EnvName, fb: TurnFeedback): string {
  if (fb.invalidReason) return `Your reply could not be used: ${fb.invalidReason}.`;
  const parts: string[] = [];
  if (fb.actor === "human") parts.push(`A person took over and ran:\n\`\`\`${FENCE_LANGUAGE[env]}\n${fb.action ?? ""}\n\`\`\``);
  parts.push(`Output${fb.ok ? "" : " (the action failed)"}:\n${fb.observation === "" ? "(no output)" : fb.observation}`);
  if (fb.testsPassed !== undefined) {
    parts.push(fb.testsPassed ? "The hidden tests all pass with this function." : "The hidden tests do not all pass with this function.");
  } else if (fb.reward !== undefined) {
    parts.push(`If you submitted now, the score would be ${fb.reward.toFixed(2)} out of 1.00.`);
  }
  return parts.join("\n\n");
}

/** Cuts an observation to `budget` characters, saying how much was left out. */
export function cutObservation(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const keep = Math.max(0, budget);
  return `${text.slice(0, keep)}\n[... ${text.length - keep} more characters not shown]`;
}
