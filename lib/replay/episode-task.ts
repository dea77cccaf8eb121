import "server-only";
import { config } from "@/lib/config";
import { getTask, loadDataset } from "@/lib/datasets/registry";
import type { EnvName, Task } from "@/lib/datasets/types";
import { createEnvironment } from "@/lib/env";
import type { ProfileName } from "@/lib/env/profiles";
import type { Environment } from "@/lib/env/types";
import { NotFoundError } from "@/lib/errors";
import type { ReplayLoop } from "./replay-check";

/**
 * The task an episode was played on: by its id in its dataset, else by its index in the dataset
 * (InterCode's results files key episodes by task index). An episode imported as `task-unlinked`
 * (its task set was not installed) holds its log's own id, which under a position rule is no id
 * of the task set (a Python log's 0 is MBPP's 1): its index is read first.
 * @throws NotFoundError when the dataset is unknown or holds neither.
 */
export function taskForEpisode({
  dataset,
  taskId,
  taskIndex,
  flags,
}: {
  dataset: string;
  taskId: string;
  taskIndex: number | null;
  flags?: string | string[];
}): Task {
  const unlinked = (typeof flags === "string" ? flags.split(" ") : (flags ?? [])).includes("task-unlinked");
  const byIndex = unlinked && taskIndex !== null ? loadDataset(dataset)[taskIndex] : undefined;
  if (byIndex) return byIndex;
  try {
    return getTask(dataset, taskId);
  } catch (err) {
    if (!(err instanceof NotFoundError) || taskIndex === null) throw err;
    const t = loadDataset(dataset)[taskIndex];
    if (!t) throw new NotFoundError(`task index ${taskIndex} in dataset ${dataset}`, { dataset, taskIndex });
    return t;
  }
}

/** A fresh environment for a viewer job (gold, replay check), on the server's sandbox backend, under `profile` (default studio). */
export function createViewerEnvironment(env: EnvName, backend?: "docker" | "local" | "auto", profile?: ProfileName): Promise<Environment> {
  const c = config();
  return createEnvironment(env, { backend: backend ?? c.backend, sqlUrl: c.sqlUrl, ...(profile ? { profile } : {}) });
}

/**
 * The loop that recorded a stored episode: an episode imported from InterCode's logs replays under
 * profile intercode with its policy and turn limit; the Studio's own under studio.
 */
export function replayLoopForEpisode(episode: { mode?: string | null; sourceFile?: string | null; policy: string | null; turnLimit: number }): ReplayLoop {
  const imported = episode.mode === "import" || Boolean(episode.sourceFile);
  return { profile: imported ? "intercode" : "studio", policy: episode.policy, turnLimit: episode.turnLimit };
}
