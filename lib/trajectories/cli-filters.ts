import { z } from "zod";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { ENV_NAMES } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { EPISODE_FLAGS, isEpisodeFlag } from "./flags";

const ANY = " (comma-separated: any of them)";

/** A comma-separated list flag: its values, or undefined when it holds none. */
const list = (help: string, value: string) =>
  z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .transform((l) => (l.length ? l : undefined))
    .optional()
    .describe(`${help}${ANY}`)
    .meta({ value });

/**
 * The episode filter flags shared by `icstudio export`, `stats`, `failures`, `tasks-qa` and `scan`:
 * one schema fragment the commands extend (`filterFlags.extend({...})`), and the keys of a filter
 * written as one value (`filtersFromSpec`).
 */
export const filterFlags = z.object({
  env: z
    .string()
    .transform((v, ctx) => {
      const l = v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = l.find((e) => !(ENV_NAMES as readonly string[]).includes(e));
      if (bad) ctx.addIssue({ code: "custom", message: `unknown environment ${JSON.stringify(bad)}; one of ${ENV_NAMES.join(", ")}` });
      return l.length ? l : undefined;
    })
    .optional()
    .describe(`only these environments${ANY}`)
    .meta({ value: ENV_NAMES.join(",") }),
  dataset: list("only these datasets", "D"),
  model: list("only episodes these models played", "M"),
  policy: list("only these policies", "P"),
  actor: list("only these players: human, model, imported", "human|model|imported"),
  annotator: list("only episodes these people annotated", "A"),
  status: list("only episodes with these statuses", "S"),
  hardness: list("only tasks of this Spider hardness", "H"),
  task: list("only these task ids", "ID"),
  run: z.string().optional().describe("only the episodes of this run").meta({ value: "RUN_ID" }),
  tag: z.string().optional().describe("only episodes carrying this tag").meta({ value: "T" }),
  flag: z
    .string()
    .refine(isEpisodeFlag, { error: (iss) => `unknown flag ${JSON.stringify(iss.input)}; one of ${Object.keys(EPISODE_FLAGS).join(", ")}` })
    .optional()
    .describe(`only episodes an import flagged so: one of ${Object.keys(EPISODE_FLAGS).join(", ")}`)
    .meta({ value: "F" }),
  success: z
    .enum(["true", "false"], { error: "must be true or false" })
    .transform((v) => v === "true")
    .optional()
    .describe("only solved (true) or unsolved (false) episodes"),
  search: z.string().optional().describe("full-text search over the query, the actions and the observations").meta({ value: "TEXT" }),
});

export type FilterFlags = z.output<typeof filterFlags>;

/** The store's filters of checked filter flags (a command's `values`, or `filterFlags`' output). */
export function episodeFilters(v: FilterFlags): EpisodeFilters {
  const f: EpisodeFilters = {};
  if (v.env) f.environment = v.env;
  if (v.dataset) f.dataset = v.dataset;
  if (v.model) f.model = v.model;
  if (v.policy) f.policy = v.policy;
  if (v.actor) f.playerKind = v.actor;
  if (v.annotator) f.annotator = v.annotator;
  if (v.status) f.status = v.status;
  if (v.hardness) f.hardness = v.hardness;
  if (v.task) f.taskId = v.task;
  if (v.run !== undefined) f.runId = v.run;
  if (v.tag !== undefined) f.tag = v.tag;
  if (v.flag !== undefined) f.flag = v.flag;
  if (v.search !== undefined) f.search = v.search;
  if (v.success !== undefined) f.success = v.success;
  return f;
}

/** Turns unchecked filter values (strings, as flags give them) into store filters, naming a bad value's flag. */
export function filtersFromFlags(values: Record<string, unknown>): EpisodeFilters {
  const parsed = filterFlags.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, `--${String(issue.path[0] ?? "")}`);
  }
  return episodeFilters(parsed.data);
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
    if (!Object.hasOwn(filterFlags.shape, key))
      throw new BadInputError(`unknown filter key ${JSON.stringify(key)}; one of ${Object.keys(filterFlags.shape).join(", ")}`, where);
    if (!value) throw new BadInputError(`${key} has no value`, where);
    values[key] = values[key] === undefined ? value : `${values[key]},${value}`;
  }
  if (!Object.keys(values).length) throw new BadInputError("an empty filter; write key=value pairs, e.g. model=gpt-4,policy=try-again,env=sql", where);
  try {
    return filtersFromFlags(values);
  } catch (err) {
    if (err instanceof BadInputError && err.where?.startsWith("--"))
      throw new BadInputError(err.message.slice(err.where.length + 2), `${where} ${err.where.slice(2)}`);
    throw err;
  }
}
