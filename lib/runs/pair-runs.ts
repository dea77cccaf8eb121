import type { PairedOutcome } from "@/lib/stats/paired";
import type { RunTaskView } from "./view-types";
import { isFinishedStatus } from "@/lib/db/episode-status";

/** What pairing reads of a task row: a run's task view, or an episode matched by a filter (lib/runs/compare-filters.ts). */
export type PairableRow = Pick<RunTaskView, "taskId" | "episodeId" | "status" | "reward" | "success" | "group">;

/** One task finished by both runs, with each run's episode. */
export interface PairedTask {
  taskId: string;
  /** The task's group (Spider hardness, bash file system) as the first run's row gives it, else the second's. */
  group: string | null;
  a: { episodeId: string; reward: number | null; success: boolean };
  b: { episodeId: string; reward: number | null; success: boolean };
}

/** Two runs on the same tasks, split by who solved each task. */
export interface RunPairing {
  both: PairedTask[];
  aOnly: PairedTask[];
  bOnly: PairedTask[];
  neither: PairedTask[];
  /** Tasks only one of the runs has finished (left out of the four groups). */
  unpaired: number;
}

/**
 * Pairs two runs task by task (each task's finished episode in each run) and splits the tasks
 * both finished into solved by both, by one only, by neither. Pure: the runs' task rows in, the
 * groups out, in the first run's task order. A task with several finished rows on one side is
 * paired on its last one.
 */
export function pairRuns(a: readonly PairableRow[], b: readonly PairableRow[]): RunPairing {
  const done = (rows: readonly PairableRow[]) => new Map(rows.filter((r) => r.episodeId && isFinishedStatus(r.status)).map((r) => [r.taskId, r]));
  const da = done(a);
  const db = done(b);
  const out: RunPairing = { both: [], aOnly: [], bOnly: [], neither: [], unpaired: 0 };
  for (const [taskId, ra] of da) {
    const rb = db.get(taskId);
    if (!rb) {
      out.unpaired++;
      continue;
    }
    const pair: PairedTask = {
      taskId,
      group: ra.group ?? rb.group,
      a: { episodeId: ra.episodeId!, reward: ra.reward, success: ra.success },
      b: { episodeId: rb.episodeId!, reward: rb.reward, success: rb.success },
    };
    (ra.success ? (rb.success ? out.both : out.aOnly) : rb.success ? out.bOnly : out.neither).push(pair);
  }
  for (const taskId of db.keys()) if (!da.has(taskId)) out.unpaired++;
  return out;
}

/** The pairs of a pairing as the paired statistics read them (lib/stats/paired.ts): whether each side solved the task, and its group. */
export function pairedOutcomes(p: RunPairing): PairedOutcome[] {
  return [...p.both, ...p.aOnly, ...p.bOnly, ...p.neither].map((t) => ({ a: t.a.success, b: t.b.success, group: t.group }));
}
