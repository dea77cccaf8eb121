import "server-only";
import { ctfGoldText } from "@/lib/datasets/ctf-assets";
import type { Task } from "@/lib/datasets/types";

/**
 * The gold of a task, rendered once per environment. `episodeGold` is what `Episode.gold` means,
 * whichever path creates the episode (playground, model run, branch): the task's gold answer as
 * text — bash: its command(s), one per line; sql: the query; python: the function; ctf: the flag.
 * `goldShown` is what a person is shown as the gold solution after a submit and in the replay:
 * the same, except that a CTF task shows how the flag is found (InterCode's write-up, else the
 * task's solution command) before the flag. Stored episodes from before this rule were rewritten
 * by migration 20261201170000_episode_gold_one_meaning.
 */
export function episodeGold(task: Task): string {
  switch (task.env) {
    case "bash":
      return Array.isArray(task.gold) ? task.gold.join("\n") : task.gold;
    case "sql":
    case "python":
    case "ctf":
      return task.gold;
  }
}

/** The gold solution as shown after a submit and in the replay (see episodeGold). */
export function goldShown(task: Task): string {
  return task.env === "ctf" ? ctfGoldText(task) : episodeGold(task);
}

/** The fields of a new episode that come from its task, the same for every path that creates one. */
export function newEpisodeFromTask(task: Task) {
  return {
    environment: task.env,
    dataset: task.dataset,
    taskId: task.id,
    taskIndex: task.index,
    query: task.query,
    gold: episodeGold(task),
    hardness: task.env === "sql" ? (task.hardness ?? null) : null,
    db: task.env === "sql" ? task.db : task.env === "bash" ? (task.fs ?? null) : null,
  };
}
