import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { BadInputError } from "@/lib/errors";
import { EPISODE_FLAGS, isEpisodeFlag } from "./flags";

/** The filter flags shared by `icstudio export` and `icstudio stats` (comma-separated lists). */
export const FILTER_OPTIONS = {
  env: { type: "string" },
  dataset: { type: "string" },
  model: { type: "string" },
  policy: { type: "string" },
  actor: { type: "string" },
  annotator: { type: "string" },
  status: { type: "string" },
  hardness: { type: "string" },
  task: { type: "string" },
  run: { type: "string" },
  tag: { type: "string" },
  flag: { type: "string" },
  success: { type: "string" },
  search: { type: "string" },
} as const;

export const FILTER_HELP = `filters (comma-separated values match any):
  --env bash,sql    --dataset D   --model M   --policy P   --actor human|model|imported
  --annotator A     --status S    --hardness H   --task ID   --run RUN_ID   --tag T
  --flag F (an import flag: ${Object.keys(EPISODE_FLAGS).join(", ")})
  --success true|false   --search "full text"`;

const list = (v: unknown): string[] | undefined => (typeof v === "string" && v.trim() ? v.split(",").map((s) => s.trim()).filter(Boolean) : undefined);

/** Turns the parsed filter flags into store filters, naming a bad value. */
export function filtersFromFlags(values: Record<string, unknown>): EpisodeFilters {
  const f: EpisodeFilters = {};
  const env = list(values.env);
  if (env) {
    const bad = env.find((e) => !["bash", "sql", "python", "ctf"].includes(e));
    if (bad) throw new BadInputError(`unknown environment ${JSON.stringify(bad)}; one of bash, sql, python, ctf`, "--env");
    f.environment = env;
  }
  if (list(values.dataset)) f.dataset = list(values.dataset);
  if (list(values.model)) f.model = list(values.model);
  if (list(values.policy)) f.policy = list(values.policy);
  if (list(values.actor)) f.playerKind = list(values.actor);
  if (list(values.annotator)) f.annotator = list(values.annotator);
  if (list(values.status)) f.status = list(values.status);
  if (list(values.hardness)) f.hardness = list(values.hardness);
  if (list(values.task)) f.taskId = list(values.task);
  if (typeof values.run === "string") f.runId = values.run;
  if (typeof values.tag === "string") f.tag = values.tag;
  if (typeof values.flag === "string") {
    if (!isEpisodeFlag(values.flag)) throw new BadInputError(`unknown flag ${JSON.stringify(values.flag)}; one of ${Object.keys(EPISODE_FLAGS).join(", ")}`, "--flag");
    f.flag = values.flag;
  }
  if (typeof values.search === "string") f.search = values.search;
  if (values.success !== undefined) {
    if (values.success !== "true" && values.success !== "false") throw new BadInputError("must be true or false", "--success");
    f.success = values.success === "true";
  }
  return f;
}
