import "server-only";
import { loadDataset } from "@/lib/datasets/registry";
import { selectTasks } from "@/lib/datasets/selection";
import type { Task } from "@/lib/datasets/types";
import { resolveModel, type AdHocModel, type ResolvedModel } from "@/lib/agent/models";
import { BadInputError, StudioError } from "@/lib/errors";
import type { LaunchRunOptions, StoredRunConfig } from "./launch-options";

/** A run checked and ready to start: nothing has been stored or started yet. */
export interface PreparedRun {
  runName: string;
  config: StoredRunConfig;
  tasks: Task[];
  model: ResolvedModel;
}

export interface PrepareRunContext {
  /** The sandbox cap (IC_MAX_SANDBOXES): a run may not ask for more episodes at once. */
  maxSandboxes: number;
  launchedFrom: "server" | "cli";
  /** An ad-hoc OpenAI-compatible endpoint (`icstudio eval --base-url`). */
  adhoc?: AdHocModel;
  /** How a field is named to the user: "concurrency" → "--concurrency" on the command line, "body concurrency" over HTTP. */
  field?: (name: string) => string;
  /** Suffix for a default run name (the runs page adds the time, so a second launch is a new run). */
  nameSuffix?: string;
}

/**
 * Live sandboxes one episode of an environment holds: a bash episode keeps a second one, where gold
 * runs at the score (lib/env/bash.ts; profile row `bash.gold-run`, both sides).
 */
function sandboxesPerEpisode(env: string): number {
  return env === "bash" ? 2 : 1;
}

/**
 * Checks everything a batch run needs before anything starts (the one check for `icstudio eval`
 * and the runs page): the concurrency against the sandbox cap, the dataset and its environment,
 * the task selection, the model.
 * @throws BadInputError naming the field at fault.
 */
export function prepareRun(o: LaunchRunOptions, ctx: PrepareRunContext): PreparedRun {
  const field = ctx.field ?? ((n: string) => n);
  const each = sandboxesPerEpisode(o.env);
  if (o.concurrency * each > ctx.maxSandboxes) {
    const why = each > 1 ? ` allows: a ${o.env} episode holds ${each} sandboxes, its own and the one gold runs in at the score` : "";
    throw new BadInputError(
      `${o.concurrency} episodes at once is more than the sandbox cap of ${ctx.maxSandboxes} (IC_MAX_SANDBOXES)${why}`,
      field("concurrency"),
    );
  }
  let all: Task[];
  try {
    all = loadDataset(o.dataset);
  } catch (err) {
    if (err instanceof StudioError && (err.code === "not_found" || err.code === "bad_input")) throw new BadInputError(err.message, field("dataset"));
    throw err;
  }
  const wrongEnv = all.find((t) => t.env !== o.env);
  if (wrongEnv) throw new BadInputError(`dataset ${o.dataset} holds ${wrongEnv.env} tasks, not ${o.env}`, field("dataset"));
  let tasks: Task[];
  try {
    tasks = selectTasks(all, o.selection);
  } catch (err) {
    if (err instanceof BadInputError && err.where) throw new BadInputError(err.message.slice(err.where.length + 2), field(err.where));
    throw err;
  }
  if (tasks.length === 0) throw new BadInputError("no tasks to run", field("dataset"));
  let model: ResolvedModel;
  try {
    model = resolveModel(o.model, ctx.adhoc ? { adhoc: { ...ctx.adhoc, model: ctx.adhoc.model ?? o.model } } : {});
  } catch (err) {
    if (err instanceof StudioError && (err.code === "not_found" || err.code === "bad_input")) {
      throw new BadInputError(err instanceof BadInputError && err.where ? err.message.slice(err.where.length + 2) : err.message, field("model"));
    }
    throw err;
  }
  const turns = o.policy === "single-turn" ? 1 : o.turns;
  const config: StoredRunConfig = {
    env: o.env,
    dataset: o.dataset,
    model: model.info.id,
    policy: o.policy,
    turns,
    handicap: o.handicap,
    refineTurns: o.refineTurns,
    ...(o.profile === "intercode" ? { profile: o.profile } : {}),
    taskIds: tasks.map((t) => t.id),
    selection: o.selection,
    concurrency: o.concurrency,
    launchedFrom: ctx.launchedFrom,
  };
  const runName = o.name ?? `${o.dataset}.${model.info.id}.${o.policy}.${turns}${o.profile === "intercode" ? ".intercode" : ""}${ctx.nameSuffix ?? ""}`;
  return { runName, config, tasks, model };
}
