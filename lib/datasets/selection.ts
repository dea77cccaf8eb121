import { BadInputError } from "@/lib/errors";
import { mulberry32 } from "@/lib/seeded-random";

/**
 * Which of a dataset's tasks to take, the one rule for studies, batch runs (`icstudio eval` and
 * the runs page): a slice (`offset`, then at most `limit`), a seeded random sample of `limit`
 * tasks, or a list of task ids in the order given.
 */
export type TaskSelection =
  | { kind: "slice"; offset?: number; limit?: number }
  | { kind: "sample"; limit: number; seed: number }
  | { kind: "list"; tasks: string[] };

/**
 * The selected tasks, in order.
 * @throws BadInputError naming the field (`where` prefixed by `at`): a slice past the end, an id
 * not in the dataset, or an empty result.
 */
export function selectTasks<T extends { id: string }>(tasks: readonly T[], selection: TaskSelection, at = "selection."): T[] {
  switch (selection.kind) {
    case "slice": {
      const offset = selection.offset ?? 0;
      if (offset >= tasks.length)
        throw new BadInputError(`the slice starts at task ${offset}, past the end of the dataset (${tasks.length} tasks)`, `${at}offset`);
      return tasks.slice(offset, selection.limit === undefined ? undefined : offset + selection.limit);
    }
    case "sample": {
      // Seeded Fisher-Yates, then the first `limit`.
      const rnd = mulberry32(selection.seed);
      const out = [...tasks];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out.slice(0, selection.limit);
    }
    case "list": {
      const byId = new Map(tasks.map((t) => [t.id, t]));
      const missing = selection.tasks.filter((id) => !byId.has(id));
      if (missing.length)
        throw new BadInputError(
          `no such task in the dataset: ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ` and ${missing.length - 10} more` : ""}`,
          `${at}tasks`,
        );
      if (!selection.tasks.length) throw new BadInputError("the task list is empty", `${at}tasks`);
      return selection.tasks.map((id) => byId.get(id)!);
    }
  }
}
