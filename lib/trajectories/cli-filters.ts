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

/**
 * Parses a filter written as one value, `model=gpt-4,policy=try-again,env=sql` (the keys of the
 * filter flags, without `--`), into store filters. A part without `=` adds a value to the key
 * before it (`env=sql,bash` matches either). Errors name `where` and the bad key or value
 * (`--a: unknown filter key "modle"; ...`, `--a env: unknown environment ...`).
 */
export function filtersFromSpec(spec: string, where: string): EpisodeFilters {
  const values: Record<string, string> = {};
  let key: string | undefined;
  for (const raw of spec.split(",")) {
    const part = raw.trim();
    if (!part) continue;
    const eq = part.indexOf("=");
    if (eq < 0) {
      if (!key) throw new BadInputError(`${JSON.stringify(part)} has no key; write key=value, e.g. model=gpt-4,policy=try-again,env=sql`, where);
      values[key] += `,${part}`;
      continue;
    }
    key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!Object.hasOwn(FILTER_OPTIONS, key)) throw new BadInputError(`unknown filter key ${JSON.stringify(key)}; one of ${Object.keys(FILTER_OPTIONS).join(", ")}`, where);
    if (!value) throw new BadInputError(`${key} has no value`, where);
    values[key] = values[key] === undefined ? value : `${values[key]},${value}`;
  }
  if (!Object.keys(values).length) throw new BadInputError("an empty filter; write key=value pairs, e.g. model=gpt-4,policy=try-again,env=sql", where);
  try {
    return filtersFromFlags(values);
  } catch (err) {
    if (err instanceof BadInputError && err.where?.startsWith("--")) throw new BadInputError(err.message.slice(err.where.length + 2), `${where} ${err.where.slice(2)}`);
    throw err;
  }
}
