import "server-only";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { ensureFileSystem } from "@/lib/datasets/bash-fs";
import { ctfFiles } from "@/lib/datasets/ctf-assets";
import { intercodeFsDir, taskFileSystem } from "@/lib/datasets/intercode-fs";
import { findTask, getTask, listDatasets, loadDataset } from "@/lib/datasets/registry";
import type { DatasetInfo, EnvName, Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { mulberry32 } from "@/lib/seeded-random";
import type { PublicTask } from "@/lib/tasks/public-task";
import { formatTaskRef, parseTaskRef } from "@/lib/tasks/task-ref";

/** Resolves `<dataset>:<id>` (or a bare id in the environment's datasets) to a task of `env`. */
export function resolveTask(env: EnvName, ref: string): Task {
  const { dataset, id } = parseTaskRef(ref);
  if (!dataset) return findTask(env, id);
  const task = getTask(dataset, id);
  if (task.env !== env) throw new BadInputError(`task ${ref} is a ${task.env} task, not ${env}`, "task");
  return task;
}

const TREE_MAX_ENTRIES = 300;
const TREE_MAX_DEPTH = 4;

/** The host directory of a bash task's working tree (/testbed in the sandbox), built on first use. */
export async function bashTreeDir(fs: string): Promise<string | null> {
  try {
    const root = await ensureFileSystem(fs);
    const testbed = path.join(root, "testbed");
    return existsSync(testbed) ? testbed : root;
  } catch {
    return null;
  }
}

/** A listing of a directory (relative paths, directories ending in "/"), bounded in depth and size. */
export function listTree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    if (out.length >= TREE_MAX_ENTRIES || depth > TREE_MAX_DEPTH) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name === ".git") continue;
      if (out.length >= TREE_MAX_ENTRIES) {
        out.push("…");
        return;
      }
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.push(`${p}/`);
        walk(path.join(dir, e.name), p, depth + 1);
      } else out.push(p);
    }
  };
  walk(root, "", 1);
  return out;
}

/**
 * What a player may see of a task. Never the gold solution; for python never the hidden tests
 * (only the name of the function they call).
 */
export async function publicTask(task: Task): Promise<PublicTask> {
  const base = { env: task.env, dataset: task.dataset, id: task.id, index: task.index, ref: formatTaskRef(task.dataset, task.id), query: task.query };
  switch (task.env) {
    case "sql":
      return { ...base, db: task.db, hardness: task.hardness, tables: task.tables };
    case "bash": {
      const fs = taskFileSystem(task);
      if (fs.source === "intercode") {
        // InterCode's root: its task directories (testbed/, system/, workspace/...) without the system ones.
        const tree = listTree(intercodeFsDir(fs.number!)).filter((p) => !/^(\.gitignore|setup_nl2b_fs_\d\.sh|(boot|home|media|opt|srv)\/)$/.test(p));
        return { ...base, fs: fs.name, fsSource: fs.source, tree };
      }
      const dir = await bashTreeDir(task.fs);
      return { ...base, fs: task.fs, fsSource: fs.source, tree: dir ? listTree(dir).map((p) => `testbed/${p}`) : undefined };
    }
    case "python":
      return { ...base, functionName: task.functionName ?? functionNameFromTests(task.tests) };
    case "ctf": {
      const files = ctfFiles(task);
      return { ...base, tags: task.tags, ...(files.state === "absent" ? { filesMissing: files.reason } : {}) };
    }
  }
}

function functionNameFromTests(tests: string[]): string | undefined {
  for (const t of tests) {
    const m = /assert\s+(?:not\s+)?\(?\s*(?:(?:set|math\.isclose|abs|round|sorted|str|list|tuple)\()?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(t);
    if (m && !["set", "sorted", "abs", "round", "math", "str", "list", "tuple", "len"].includes(m[1])) return m[1];
  }
  return undefined;
}

/** One row of the task picker (public fields only). */
export interface TaskSummary {
  env: EnvName;
  dataset: string;
  id: string;
  index: number;
  query: string;
  hardness?: string;
  db?: string;
  fs?: string;
  /** ctf: the task's files are not here (see PublicTask.filesMissing). */
  filesMissing?: boolean;
}

export interface TaskSearch {
  env?: EnvName;
  dataset?: string;
  q?: string;
  hardness?: string;
  db?: string;
  fs?: string;
  offset?: number;
  limit?: number;
}

/** Datasets, optionally of one environment. */
export function datasetsFor(env?: EnvName): DatasetInfo[] {
  const all = listDatasets();
  return env ? all.filter((d) => d.env === env) : all;
}

function summary(t: Task): TaskSummary {
  return {
    env: t.env,
    dataset: t.dataset,
    id: t.id,
    index: t.index,
    query: t.query,
    hardness: t.env === "sql" ? t.hardness : undefined,
    db: t.env === "sql" ? t.db : undefined,
    fs: t.env === "bash" ? t.fs : undefined,
    filesMissing: t.env === "ctf" && ctfFiles(t).state === "absent" ? true : undefined,
  };
}

/** Tasks matching a search, with the filter values available in the searched datasets. */
export function searchTasks(s: TaskSearch): { total: number; tasks: TaskSummary[]; facets: { dbs: string[]; fss: string[]; hardness: string[] } } {
  const sets = datasetsFor(s.env).filter((d) => !s.dataset || d.name === s.dataset);
  const q = s.q?.trim().toLowerCase();
  const matched: Task[] = [];
  const dbs = new Set<string>();
  const fss = new Set<string>();
  const hardness = new Set<string>();
  for (const d of sets) {
    for (const t of loadDataset(d.name)) {
      if (t.env === "sql") {
        dbs.add(t.db);
        if (t.hardness) hardness.add(t.hardness);
      }
      if (t.env === "bash") fss.add(t.fs);
      if (q && !t.query.toLowerCase().includes(q) && t.id.toLowerCase() !== q) continue;
      if (s.hardness && (t.env !== "sql" || t.hardness !== s.hardness)) continue;
      if (s.db && (t.env !== "sql" || t.db !== s.db)) continue;
      if (s.fs && (t.env !== "bash" || t.fs !== s.fs)) continue;
      matched.push(t);
    }
  }
  const offset = s.offset ?? 0;
  const limit = s.limit ?? 50;
  return {
    total: matched.length,
    tasks: matched.slice(offset, offset + limit).map(summary),
    facets: { dbs: [...dbs].sort(), fss: [...fss].sort(), hardness: ["easy", "medium", "hard", "extra"].filter((h) => hardness.has(h)) },
  };
}

/** A random task matching the search (seeded when `seed` is given). */
export function randomTask(s: TaskSearch, seed?: number): TaskSummary | null {
  const { total } = searchTasks({ ...s, limit: 0 });
  if (total === 0) return null;
  const r = seed === undefined ? Math.random() : mulberry32(seed)();
  const i = Math.floor(r * total);
  return searchTasks({ ...s, offset: i, limit: 1 }).tasks[0] ?? null;
}
