import "server-only";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { parseDatasetFile, type DatasetFormat } from "./formats";
import { DATASETS_DIR, intercodeDataDir } from "./paths";
import type { DatasetInfo, EnvName, Task } from "./types";

/** Where one dataset's tasks come from. */
export interface DatasetSource {
  name: string;
  env: EnvName;
  source: "demo" | "intercode";
  description: string;
  /** The file, once resolved (may not exist yet for InterCode sets that were not fetched). */
  file: string;
  format: DatasetFormat;
  fs?: string;
}

/** InterCode's task sets: dataset name → path under the fetched data directory. */
export const INTERCODE_SETS: readonly { name: string; env: EnvName; rel: string; format: DatasetFormat; fs?: string; description: string }[] = [
  {
    name: "nl2bash-fs1",
    env: "bash",
    rel: "nl2bash/nl2bash_fs_1.json",
    format: "nl2bash",
    fs: "fs1",
    description: "InterCode NL2Bash queries on file system 1",
  },
  {
    name: "nl2bash-fs2",
    env: "bash",
    rel: "nl2bash/nl2bash_fs_2.json",
    format: "nl2bash",
    fs: "fs2",
    description: "InterCode NL2Bash queries on file system 2",
  },
  {
    name: "nl2bash-fs3",
    env: "bash",
    rel: "nl2bash/nl2bash_fs_3.json",
    format: "nl2bash",
    fs: "fs3",
    description: "InterCode NL2Bash queries on file system 3",
  },
  {
    name: "nl2bash-fs4",
    env: "bash",
    rel: "nl2bash/nl2bash_fs_4.json",
    format: "nl2bash",
    fs: "fs4",
    description: "InterCode NL2Bash queries on file system 4",
  },
  { name: "spider-dev", env: "sql", rel: "sql/spider/ic_spider_dev.json", format: "spider", description: "InterCode SQL: the Spider dev set" },
  { name: "mbpp", env: "python", rel: "python/mbpp/ic_mbpp.json", format: "mbpp", description: "InterCode Python: MBPP" },
  { name: "ctf", env: "ctf", rel: "ctf/ic_ctf.json", format: "ctf", description: "InterCode CTF: picoCTF tasks (assets not included)" },
];

interface CacheEntry {
  mtimeMs: number;
  size: number;
  tasks: Task[];
  byId: Map<string, Task>;
}
const cache = new Map<string, CacheEntry>();

/** Every dataset the Studio knows, demo sets first; InterCode sets only once fetched. */
export function listDatasetSources(): DatasetSource[] {
  const out: DatasetSource[] = [];
  if (existsSync(DATASETS_DIR)) {
    for (const f of readdirSync(DATASETS_DIR).sort()) {
      const m = /^demo-(bash|sql|python|ctf)\.json$/.exec(f);
      if (!m) continue;
      out.push({
        name: `demo-${m[1]}`,
        env: m[1] as EnvName,
        source: "demo",
        description: `The project's own ${m[1]} tasks`,
        file: path.join(DATASETS_DIR, f),
        format: "demo",
      });
    }
  }
  const dir = intercodeDataDir();
  for (const s of INTERCODE_SETS) {
    const file = path.join(dir, s.rel);
    if (existsSync(file)) out.push({ name: s.name, env: s.env, source: "intercode", description: s.description, file, format: s.format, fs: s.fs });
  }
  return out;
}

/** Parses (or returns from cache, keyed by path, mtime and size) a file's tasks. */
function loadFile(src: Pick<DatasetSource, "file" | "name" | "format" | "fs" | "env">): CacheEntry {
  const st = statSync(src.file);
  const key = `${src.name}\0${src.file}`;
  const hit = cache.get(key);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit;
  const tasks = parseDatasetFile(src.file, { dataset: src.name, format: src.format, fs: src.fs, env: src.env });
  const entry: CacheEntry = { mtimeMs: st.mtimeMs, size: st.size, tasks, byId: new Map(tasks.map((t) => [t.id, t])) };
  cache.set(key, entry);
  return entry;
}

/** Datasets with their task counts, for `icstudio datasets` and the task picker. */
export function listDatasets(): DatasetInfo[] {
  return listDatasetSources().map((s) => ({ name: s.name, env: s.env, tasks: loadFile(s).tasks.length, source: s.source, description: s.description }));
}

function sourceFor(nameOrPath: string): DatasetSource {
  const known = listDatasetSources().find((s) => s.name === nameOrPath);
  if (known) return known;
  const ic = INTERCODE_SETS.find((s) => s.name === nameOrPath);
  if (ic) throw new NotFoundError(`dataset ${nameOrPath} (run \`icstudio datasets fetch intercode\` first)`, { dataset: nameOrPath });
  if (nameOrPath.endsWith(".json") && existsSync(nameOrPath)) {
    const file = path.resolve(nameOrPath);
    const base = path.basename(file);
    const icByFile = INTERCODE_SETS.find((s) => path.basename(s.rel) === base);
    if (icByFile)
      return { name: icByFile.name, env: icByFile.env, source: "intercode", description: icByFile.description, file, format: icByFile.format, fs: icByFile.fs };
    const demo = /^demo-(bash|sql|python|ctf)/.exec(base);
    if (demo) return { name: base.replace(/\.json$/, ""), env: demo[1] as EnvName, source: "demo", description: base, file, format: "demo" };
    if (base === "test_queries.json") return { name: "nl2bash-test", env: "bash", source: "intercode", description: base, file, format: "nl2bash", fs: "fs1" };
    throw new BadInputError("cannot tell the dataset format from the file name", nameOrPath);
  }
  throw new NotFoundError(`dataset ${JSON.stringify(nameOrPath)}`, { dataset: nameOrPath, known: listDatasetSources().map((s) => s.name) });
}

/**
 * All tasks of a dataset, by name (`nl2bash-fs1`, `demo-python`, ...) or by the path of a task file.
 * @throws NotFoundError for an unknown dataset; BadInputError for a malformed file.
 */
export function loadDataset(nameOrPath: string): Task[] {
  return loadFile(sourceFor(nameOrPath)).tasks;
}

/** One task by dataset and id. @throws NotFoundError */
export function getTask(dataset: string, id: string): Task {
  const t = loadFile(sourceFor(dataset)).byId.get(id);
  if (!t) throw new NotFoundError(`task ${JSON.stringify(id)} in dataset ${dataset}`, { dataset, id });
  return t;
}

/** The dataset used when a task reference names none. */
export function defaultDataset(env: EnvName): string {
  return `demo-${env}`;
}

/**
 * Resolves a task reference for an environment: "dataset/id", or "id" in the environment's
 * default (demo) dataset, falling back to the first dataset of that environment holding the id.
 */
export function findTask(env: EnvName, taskRef: string): Task {
  const slash = taskRef.lastIndexOf("/");
  if (slash > 0) {
    const t = getTask(taskRef.slice(0, slash), taskRef.slice(slash + 1));
    if (t.env !== env) throw new BadInputError(`task ${taskRef} is a ${t.env} task, not ${env}`, "task");
    return t;
  }
  const sources = listDatasetSources().filter((s) => s.env === env);
  sources.sort((a, b) => Number(b.name === defaultDataset(env)) - Number(a.name === defaultDataset(env)));
  for (const s of sources) {
    const t = loadFile(s).byId.get(taskRef);
    if (t) return t;
  }
  throw new NotFoundError(`${env} task ${JSON.stringify(taskRef)}`, { env, task: taskRef, datasets: sources.map((s) => s.name) });
}

/** Forgets parsed files (after a fetch replaced them). */
export function clearDatasetCache(): void {
  cache.clear();
}
