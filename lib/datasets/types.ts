import { z } from "zod";

export const ENV_NAMES = ["bash", "sql", "python", "ctf"] as const;
export const envNameSchema = z.enum(ENV_NAMES);
export type EnvName = z.infer<typeof envNameSchema>;

const taskBase = {
  /** Dataset name, e.g. "nl2bash-fs1", "spider-dev", "mbpp", "demo-sql". */
  dataset: z.string().min(1),
  /** The id as the dataset names it (InterCode's task_id, or the index as a string). */
  id: z.string().min(1),
  /** Position in the dataset file (InterCode's logs refer to tasks by it). */
  index: z.number().int().nonnegative(),
  query: z.string().min(1),
};

export const bashTaskSchema = z.object({
  ...taskBase,
  env: z.literal("bash"),
  /** File system the task runs on: "fs1".."fs4" or a demo file system name under datasets/bash/. */
  fs: z.string().min(1),
  /** Gold command; InterCode sometimes gives a list, run in order. */
  gold: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
});

export const sqlTaskSchema = z.object({
  ...taskBase,
  env: z.literal("sql"),
  db: z.string().min(1),
  gold: z.string().min(1),
  hardness: z.enum(["easy", "medium", "hard", "extra"]).optional(),
  /** table → columns, as InterCode's db_tables. */
  tables: z.record(z.string(), z.array(z.string())),
});

export const pythonTaskSchema = z.object({
  ...taskBase,
  env: z.literal("python"),
  /** Reference implementation. */
  gold: z.string().min(1),
  /** Hidden tests: `assert ...` lines. */
  tests: z.array(z.string().min(1)).min(1),
  setup: z.string().default(""),
  /** Name of the function the tests call (parsed from the tests when not given). */
  functionName: z.string().optional(),
});

export const ctfTaskSchema = z.object({
  ...taskBase,
  env: z.literal("ctf"),
  /** The flag. */
  gold: z.string().min(1),
  /** Directory of task files under datasets/ctf/ (or the fetched InterCode assets), if any. */
  files: z.string().optional(),
  setup: z.string().optional(),
  tags: z.array(z.string()).default([]),
  /** A command that reveals the flag, shown as the gold solution when known. */
  solution: z.string().optional(),
});

export const taskSchema = z.discriminatedUnion("env", [bashTaskSchema, sqlTaskSchema, pythonTaskSchema, ctfTaskSchema]);

export type BashTask = z.infer<typeof bashTaskSchema>;
export type SqlTask = z.infer<typeof sqlTaskSchema>;
export type PythonTask = z.infer<typeof pythonTaskSchema>;
export type CtfTask = z.infer<typeof ctfTaskSchema>;
export type Task = z.infer<typeof taskSchema>;

/** A dataset as listed by `icstudio datasets` and the task picker. */
export interface DatasetInfo {
  name: string;
  env: EnvName;
  tasks: number;
  source: "demo" | "intercode";
  description: string;
}
