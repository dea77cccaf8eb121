import "server-only";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { DATASETS_DIR, intercodeDataDir } from "./paths";
import type { CtfTask } from "./types";

/**
 * InterCode CTF's task files, as `icstudio datasets fetch intercode` lays them out in the data
 * directory: ctf/task_assets/<task_id>/ holds what the player gets (a sandbox starts in it), and
 * ctf/solutions/<task_id>/ the write-up (README.md, sometimes a script) taken out of the task's
 * solution/ folder, so that no sandbox ever holds it. The write-up is the gold shown beside an
 * episode after its submit (lib/replay/gold-output.ts), and withheld before.
 */
export const CTF_ASSETS_REL = "ctf/task_assets";
export const CTF_SOLUTIONS_REL = "ctf/solutions";

const isInterCode = (task: Pick<CtfTask, "dataset">) => task.dataset === "ctf";

/** Whether a task's files are here, and if not, why. */
export type CtfFilesState = { state: "present"; dir: string } | { state: "none" } | { state: "absent"; reason: string };

/** Visible entries of a task folder (hidden marker files such as `.ignore` do not count). */
function visibleEntries(dir: string): string[] {
  return readdirSync(dir).filter((e) => !e.startsWith("."));
}

/**
 * The host directory of a task's files and whether it holds any: a demo task's `files` under
 * datasets/, or InterCode's fetched ctf/task_assets/<id>/. An InterCode task whose folder is empty
 * is "absent" (three large disk images, tasks 65, 66 and 70, are not in the published copy; task 1
 * fetched its image from the network in InterCode's image build); one with no fetched folder too.
 */
export function ctfFiles(task: CtfTask): CtfFilesState {
  if (!isInterCode(task)) {
    const dir = task.files ? path.resolve(DATASETS_DIR, task.files) : undefined;
    return dir && existsSync(dir) ? { state: "present", dir } : { state: "none" };
  }
  const dir = path.join(intercodeDataDir(), CTF_ASSETS_REL, task.id);
  if (!existsSync(dir)) return { state: "absent", reason: "InterCode's CTF task files have not been fetched (icstudio datasets fetch intercode)" };
  if (visibleEntries(dir).length > 0) return { state: "present", dir };
  if (task.setup)
    return {
      state: "absent",
      reason: `this task's files came from a setup command that needs the network (${task.setup.slice(0, 120)}), which the sandbox does not have`,
    };
  return { state: "absent", reason: "this task's files (a large disk image) are not in the published copy of InterCode's data" };
}

/** The write-up of an InterCode CTF task (its solution/ folder's files, README first), or undefined. */
export function ctfSolutionText(task: CtfTask): string | undefined {
  if (!isInterCode(task)) return undefined;
  const dir = path.join(intercodeDataDir(), CTF_SOLUTIONS_REL, task.id);
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .sort((a, b) => Number(b.toLowerCase() === "readme.md") - Number(a.toLowerCase() === "readme.md") || a.localeCompare(b));
  if (!files.length) return undefined;
  return (
    files.map((f, i) => `${i === 0 && f.toLowerCase() === "readme.md" ? "" : `--- ${f}\n`}${readFileSync(path.join(dir, f), "utf8").trimEnd()}`).join("\n\n") +
    "\n"
  );
}

/**
 * The gold solution of a CTF task as one text, shown only after a submit: InterCode's write-up
 * when there is one, else the task's solution command, and the flag.
 */
export function ctfGoldText(task: CtfTask): string {
  const how = ctfSolutionText(task) ?? task.solution;
  return how ? `${how.trimEnd()}\n# flag: ${task.gold}` : task.gold;
}
