import type { EnvName, Task } from "@/lib/datasets/types";
import { DEFAULT_PROFILE, profileValue, type ProfileName } from "@/lib/env/profiles";
import { ENV_FIDELITY } from "@/lib/env/fidelity";
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

/**
 * The environment's rules as they hold under profile intercode, where its rows make an action run
 * and read differently (lib/env/profiles.ts): each text states the facts of the row it names, so
 * a model is told how InterCode's environment behaved, in the project's own words.
 */
const INTERCODE_SETTING: Record<EnvName, { row: Parameters<typeof profileValue>[1]; value: string; text: string }> = {
  sql: {
    row: "sql.observation",
    value: "str-of-row-list",
    text:
      "You are connected to a MySQL database. Each action you take is one SQL statement; the database runs it and " +
      "shows you the rows it returned as a Python list of tuples, such as [(1, 'a'), (2, 'b')], or the error it " +
      "raised. Explore the tables if you need to, then leave the query that answers the question as your last action.",
  },
  bash: {
    row: "bash.executor",
    value: "bash-c-shlex-per-action",
    text:
      "You are at a Bash prompt on a Linux machine, starting in /. Each action is one shell command (pipes and && " +
      "are fine), run on its own by a new `bash -c` and shown with what it printed. A `cd` changes the directory " +
      "later commands run in; variables and other shell state do not carry over from one action to the next. Your " +
      "last command's output, and any files you change, are what gets judged.",
  },
  python: {
    row: "python.turn",
    value: "def-as-written-else-print",
    text:
      "You have a Python 3 interpreter that keeps its state between actions. An action that starts with `def` " +
      "defines a function and runs as written; any other action is one expression, whose value is printed. You see " +
      "the result as {'output': <what was printed>, 'error': <the error, if any>}. Write the function the task " +
      "describes.",
  },
  ctf: {
    row: "ctf.action-format",
    value: "cmd-wrapper",
    text:
      "This is a capture-the-flag challenge, in a directory holding the challenge's files, with the usual " +
      "command-line tools (and python3). Each action is `cmd <program> <arguments>`: the program runs directly from " +
      'that directory, without a shell, so pipes, redirections and `cd` need one: `cmd /bin/bash -c "<command>"`. ' +
      "Somewhere in the challenge is a flag, a string usually of the form picoCTF{...}: find it and submit it.",
  },
};

/** The environment's rules under `profile` (default studio), for a system prompt. */
export function settingText(env: EnvName, profile: ProfileName = DEFAULT_PROFILE): string {
  const ic = INTERCODE_SETTING[env];
  return profileValue(profile, ic.row) === ic.value ? ic.text : SETTING[env];
}

export function submitText(env: EnvName): string {
  return SUBMIT[env];
}

/** How to write an action in a fenced block (a CTF action under `ctf.action-format` = cmd-wrapper starts with `cmd`). */
export function fenceInstruction(env: EnvName, profile: ProfileName = DEFAULT_PROFILE): string {
  const lang = FENCE_LANGUAGE[env];
  const example = ENV_FIDELITY[env].cmdWrapper(profile) ? "cmd ls -la" : "...";
  return `Put your action in a fenced code block, like this:\n\`\`\`${lang}\n${example}\n\`\`\`\nOne action per reply.`;
}

/** The action prefix a reply may carry without a fence under `profile` (CTF's `cmd`), for ParseOptions.barePrefix. */
export function barePrefix(env: EnvName, profile: ProfileName = DEFAULT_PROFILE): string | undefined {
  return ENV_FIDELITY[env].cmdWrapper(profile) ? "cmd" : undefined;
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
