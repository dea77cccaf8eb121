import "server-only";
import { listDatasetSources, loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";

/**
 * Which InterCode task an episode from another tool's log plays, so that it shows beside the
 * task's gold and can be rechecked in the Studio's environment: a CTF task by its id (Inspect's
 * `gdm_intercode_ctf` keeps InterCode's task_id as the sample id), else any InterCode task whose
 * question is the sample's input, word for word (whitespace at the ends aside).
 */
export interface TaskLinker {
  /** `ctf`: the log names the InterCode CTF task set. */
  byId(set: "ctf", id: string): Task | null;
  byQuestion(text: string): Task | null;
}

/** A linker over the InterCode task sets fetched on this machine (none fetched: nothing links). */
export function intercodeTaskLinker(): TaskLinker {
  let ctf: Map<string, Task> | null = null;
  let questions: Map<string, Task> | null = null;
  const intercode = () => listDatasetSources().filter((s) => s.source === "intercode");
  return {
    byId(_set, id) {
      if (!ctf) {
        const src = intercode().find((s) => s.name === "ctf");
        ctf = new Map(src ? loadDataset(src.name).map((t) => [t.id, t]) : []);
      }
      return ctf.get(id) ?? null;
    },
    byQuestion(text) {
      if (!questions) {
        questions = new Map();
        for (const s of intercode()) for (const t of loadDataset(s.name)) if (!questions.has(t.query.trim())) questions.set(t.query.trim(), t);
      }
      return questions.get(text.trim()) ?? null;
    },
  };
}

/** Links nothing (tests of the mapping alone). */
export const noTaskLinker: TaskLinker = { byId: () => null, byQuestion: () => null };
