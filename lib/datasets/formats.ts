import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { taskSchema, type EnvName, type Task } from "./types";

/**
 * The file formats the Studio reads: InterCode's published task sets and the project's demo
 * sets. Each record is validated with zod; a bad record is reported by file, index and field.
 */
export type DatasetFormat = "nl2bash" | "spider" | "mbpp" | "ctf" | "demo";

const idSchema = z.union([z.string().min(1), z.number().int()]).transform(String);

/** nl2bash_fs_N.json: `{query, gold}`; gold is a command or a list of commands. */
export const nl2bashRecordSchema = z.object({
  query: z.string().min(1),
  gold: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
});

/** ic_spider_dev.json. */
export const spiderRecordSchema = z.object({
  db: z.string().min(1),
  gold: z.string().min(1),
  query: z.string().min(1),
  hardness: z.enum(["easy", "medium", "hard", "extra"]).optional(),
  db_tables: z.record(z.string(), z.array(z.string())).default({}),
});

/** ic_mbpp.json. */
export const mbppRecordSchema = z.object({
  task_id: z.number().int(),
  query: z.string().min(1),
  gold: z.string().min(1),
  tests: z.array(z.string().min(1)).min(1),
  test_setup_code: z.string().default(""),
});

/** ic_ctf.json. */
export const ctfRecordSchema = z.object({
  task_id: z.number().int(),
  query: z.string().min(1),
  gold: z.string().min(1),
  source: z.string().optional(),
  tags: z.array(z.string()).default([]),
  setup: z.string().optional(),
  hint: z.string().optional(),
});

/** A demo record: the Task fields without `dataset`, `index` and `env` (taken from the file). */
const demoRecordSchema = z.looseObject({ id: idSchema, query: z.string().min(1) });

/** A demo file: a list of records, or `{env?, description?, tasks: [...]}`. */
const demoFileSchema = z.union([
  z.array(z.unknown()),
  z.looseObject({ env: z.string().optional(), description: z.string().optional(), tasks: z.array(z.unknown()) }),
]);

/** Formats a zod issue path as `field.sub[2]`. */
function fieldOf(issue: z.core.$ZodIssue): string {
  let out = "";
  for (const p of issue.path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || "(record)";
}

function recordError(file: string, index: number, error: z.ZodError): BadInputError {
  const issue = error.issues[0]!;
  const field = fieldOf(issue);
  return new BadInputError(issue.message, `${file}: record ${index}: field ${field}`, { file, record: index, field });
}

function parseRecord<S extends z.ZodType>(schema: S, raw: unknown, file: string, index: number): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) throw recordError(file, index, r.error);
  return r.data;
}

/** The name of the function that MBPP-style tests call: the first `assert name(`. */
export function functionNameFromTests(tests: string[]): string | undefined {
  for (const t of tests) {
    const m = /assert\s+(?:not\s+)?\(?\s*(?:math\.isclose\(\s*|set\(\s*|abs\(\s*|round\(\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(t);
    if (m && !["set", "abs", "round", "math", "sorted", "list", "tuple", "str", "int", "float", "len"].includes(m[1]!)) return m[1];
  }
  for (const t of tests) {
    const m = /([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
    let hit;
    while ((hit = m.exec(t))) {
      if (!["assert", "set", "abs", "round", "sorted", "list", "tuple", "str", "int", "float", "len", "isclose"].includes(hit[1]!)) return hit[1];
    }
  }
  return undefined;
}

/** Guesses a file's format from its name. */
export function formatOfFile(file: string): { format: DatasetFormat; fs?: string } {
  const base = path.basename(file);
  const fs = /^nl2bash_fs_(\d+)\.json$/.exec(base);
  if (fs) return { format: "nl2bash", fs: `fs${fs[1]}` };
  if (base === "test_queries.json") return { format: "nl2bash", fs: "fs1" };
  if (/spider/.test(base)) return { format: "spider" };
  if (/mbpp/.test(base)) return { format: "mbpp" };
  if (/^ic_ctf/.test(base)) return { format: "ctf" };
  if (/^demo-/.test(base)) return { format: "demo" };
  throw new BadInputError(
    "cannot tell the dataset format from the file name (expected nl2bash_fs_N.json, ic_spider_dev.json, ic_mbpp.json, ic_ctf.json or demo-<env>.json)",
    file,
  );
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError(`dataset file ${file}`, { file });
    throw err;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadInputError(`not valid JSON (${(err as Error).message})`, file, { file });
  }
}

export interface ParseOptions {
  /** Dataset name given to each task. */
  dataset: string;
  format: DatasetFormat;
  /** bash: the file system the tasks run on. */
  fs?: string;
  /** demo: the environment, when the file does not say. */
  env?: EnvName;
}

/**
 * Parses the contents of a task file into Tasks.
 * @throws BadInputError naming `file`, the record index and the field at fault.
 */
export function parseDatasetJson(raw: unknown, file: string, opts: ParseOptions): Task[] {
  const out: Task[] = [];
  const list = (): unknown[] => {
    if (!Array.isArray(raw)) throw new BadInputError("expected a JSON list of records", file, { file });
    return raw;
  };
  const push = (candidate: unknown, index: number) => {
    const r = taskSchema.safeParse(candidate);
    if (!r.success) throw recordError(file, index, r.error);
    out.push(r.data);
  };
  switch (opts.format) {
    case "nl2bash":
      list().forEach((rec, i) => {
        const r = parseRecord(nl2bashRecordSchema, rec, file, i);
        push({ env: "bash", dataset: opts.dataset, id: String(i), index: i, query: r.query, gold: r.gold, fs: opts.fs ?? "fs1" }, i);
      });
      break;
    case "spider":
      list().forEach((rec, i) => {
        const r = parseRecord(spiderRecordSchema, rec, file, i);
        push(
          { env: "sql", dataset: opts.dataset, id: String(i), index: i, query: r.query, gold: r.gold, db: r.db, hardness: r.hardness, tables: r.db_tables },
          i,
        );
      });
      break;
    case "mbpp":
      list().forEach((rec, i) => {
        const r = parseRecord(mbppRecordSchema, rec, file, i);
        push(
          {
            env: "python",
            dataset: opts.dataset,
            id: String(r.task_id),
            index: i,
            query: r.query,
            gold: r.gold,
            tests: r.tests,
            setup: r.test_setup_code,
            functionName: functionNameFromTests(r.tests),
          },
          i,
        );
      });
      break;
    case "ctf":
      list().forEach((rec, i) => {
        const r = parseRecord(ctfRecordSchema, rec, file, i);
        push({ env: "ctf", dataset: opts.dataset, id: String(r.task_id), index: i, query: r.query, gold: r.gold, tags: r.tags, setup: r.setup }, i);
      });
      break;
    case "demo": {
      const fileParsed = demoFileSchema.safeParse(raw);
      if (!fileParsed.success) throw new BadInputError("expected a list of tasks or an object with a `tasks` list", file, { file });
      const body = fileParsed.data;
      const records = Array.isArray(body) ? body : body.tasks;
      const fileEnv = Array.isArray(body) ? undefined : body.env;
      records.forEach((rec, i) => {
        const r = parseRecord(demoRecordSchema, rec, file, i);
        const env = (typeof r.env === "string" ? r.env : undefined) ?? fileEnv ?? opts.env;
        const candidate: Record<string, unknown> = { ...r, env, dataset: opts.dataset, index: i };
        if (env === "bash" && candidate.fs === undefined) candidate.fs = "demo";
        if (env === "python" && candidate.functionName === undefined && Array.isArray(candidate.tests)) {
          candidate.functionName = functionNameFromTests(candidate.tests as string[]);
        }
        if (env === "ctf" && candidate.files === undefined) candidate.files = `ctf/${r.id}`;
        push(candidate, i);
      });
      break;
    }
  }
  const seen = new Set<string>();
  out.forEach((t, i) => {
    if (seen.has(t.id))
      throw new BadInputError(`duplicate task id ${JSON.stringify(t.id)}`, `${file}: record ${i}: field id`, { file, record: i, field: "id" });
    seen.add(t.id);
  });
  return out;
}

/** Reads and parses a task file (format guessed from its name unless given). */
export function parseDatasetFile(file: string, opts: Partial<ParseOptions> & { dataset: string }): Task[] {
  const guessed = opts.format ? { format: opts.format, fs: opts.fs } : formatOfFile(file);
  const demoEnv = /^demo-(bash|sql|python|ctf)\b/.exec(path.basename(file))?.[1] as EnvName | undefined;
  return parseDatasetJson(readJson(file), file, {
    dataset: opts.dataset,
    format: guessed.format,
    fs: opts.fs ?? guessed.fs,
    env: opts.env ?? demoEnv,
  });
}
