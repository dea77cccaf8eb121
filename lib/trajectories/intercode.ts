import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import type { EpisodeFlag } from "./flags";
import type { JsonlEpisode } from "./jsonl-schema";

/** An episode read from any log format, ready for the store. */
export type ParsedEpisode = Omit<JsonlEpisode, "format" | "version" | "id"> & { id?: string; sourceKey: string };

/** What a file's name says (or the user's flags override): who played, how, on what. */
export interface LogMeta {
  environment?: "bash" | "sql" | "python" | "ctf";
  dataset?: string;
  /**
   * The dataset the file or run says, before the user's flag: a flag that only repeats what the
   * log implies keys its records as if it were not given, so the import stays idempotent.
   */
  impliedDataset?: string;
  model?: string | null;
  policy?: string | null;
  turnLimit?: number;
  human?: boolean;
}

const POLICY_TOKENS: Array<[RegExp, string]> = [
  [/(^|_)plan_?solve_refine(_|$)/, "plan-solve-refine"],
  [/(^|_)plan_?solve(_|$)/, "plan-solve"],
  [/(^|_)react(_|$)/, "react"],
  [/(^|_)single_?turn(_|$)/, "single-turn"],
  [/(^|_)multi_?turn(_|$)/, "try-again"],
];
/** Run variants named in file names; they qualify the policy (`try-again-handicap`). */
const VARIANT_TOKENS = ["handicap"];
const NOT_A_MODEL = /^(results?|logs?|data|bash|sql|python|ctf|ic_\w+|\.|)$/i;

/**
 * Reads model, policy, turn limit, environment and dataset from an InterCode results file name:
 * `ic_sql_multiturn_gpt-4_10_turns.json` → sql, gpt-4, try-again, 10 turns;
 * `ic_bash_multiturn_gpt-4_10_turns_fs_4.json` → dataset nl2bash-fs4; `react`, `plan_solve` and
 * `plan_solve_refine` name those policies, `singleturn` or a 1-turn limit a single turn;
 * `human` in place of a model is a person. InterCode keeps some files in a folder named after
 * the model with no model in the file name (`gpt-3.5/ic_bash_react_10_turns_fs_1.json`): then
 * the folder's name is the model.
 */
export function inferMetaFromFileName(file: string): LogMeta {
  let rest = path.basename(file).replace(/\.(json|jsonl)$/i, "");
  const meta: LogMeta = {};
  // InterCode's ReAct runs wrote `sql_react_10_turns.json`, without the `ic_`.
  const env = rest.match(/^(?:ic_)?(bash|sql|python|ctf)(_|$)/);
  if (env) {
    meta.environment = env[1] as LogMeta["environment"];
    rest = rest.slice(env[0].length);
  }
  const fs = rest.match(/(^|_)fs_?(\d+)(_|$)/);
  if (fs) {
    meta.dataset = `nl2bash-fs${fs[2]}`;
    rest = rest.replace(fs[0], "_");
  }
  // Plan & Solve with refinement names its refine turns (`plan_solve_refine_3_turns`): they are
  // part of the policy, not a turn limit (a plan has as many steps as the model wrote).
  const refine = rest.match(/(^|_)plan_?solve_refine_(\d+)_turns?(_|$)/);
  if (refine) {
    meta.policy = `plan-solve-refine-${refine[2]}`;
    rest = rest.replace(refine[0], "_");
  }
  const turns = rest.match(/(^|[_-])(\d+)_turns?(_|$)/) ?? rest.match(/(^|_)turns?_(\d+)(_|$)/);
  if (turns) {
    meta.turnLimit = Number(turns[2]);
    rest = rest.replace(turns[0], "_");
  }
  for (const [re, policy] of meta.policy ? ([] as typeof POLICY_TOKENS) : POLICY_TOKENS) {
    const m = rest.match(re);
    if (m) {
      meta.policy = policy;
      rest = rest.replace(m[0], "_");
      break;
    }
  }
  const variants: string[] = [];
  for (const v of VARIANT_TOKENS) {
    const m = rest.match(new RegExp(`(^|_)${v}(_|$)`));
    if (m) {
      variants.push(v);
      rest = rest.replace(m[0], "_");
    }
  }
  let model = rest.replace(/^_+|_+$/g, "").replace(/__+/g, "_");
  if (!model) {
    const folder = path.basename(path.dirname(file));
    if (!NOT_A_MODEL.test(folder)) model = folder;
  }
  if (/^human(s)?$/i.test(model)) {
    meta.human = true;
    meta.model = null;
    meta.policy = null;
    return meta;
  }
  if (model) meta.model = model;
  if (meta.policy === "single-turn" && meta.turnLimit === undefined) meta.turnLimit = 1;
  if (meta.turnLimit === 1 && (meta.policy === undefined || meta.policy === "try-again")) meta.policy = "single-turn";
  if (meta.model && meta.policy === undefined) meta.policy = "try-again";
  if (meta.policy && variants.length) meta.policy = [meta.policy, ...variants].join("-");
  return meta;
}

/**
 * How a log names its task, declared once per log format and environment:
 * - `index`: the 0-based position of the task in the task set's file (InterCode's results and run
 *   logs for bash, SQL and Python give `task_id` so: a Python log's task 0 is MBPP's first task,
 *   whose own `task_id` is 1; an environment log's `query_idx` likewise);
 * - `dataset-id`: the task set's own id (CTF's `task_id`).
 * The importer links each episode by its rule and checks the link against the task's question
 * (lib/trajectories/task-links.ts); it never relinks by a guess.
 */
export type TaskIdRule = "index" | "dataset-id";
export const TASK_ID_RULES: Record<"results" | "envlog" | "run", Record<"bash" | "sql" | "python" | "ctf", TaskIdRule>> = {
  results: { bash: "index", sql: "index", python: "index", ctf: "dataset-id" },
  run: { bash: "index", sql: "index", python: "index", ctf: "dataset-id" },
  envlog: { bash: "index", sql: "index", python: "index", ctf: "index" },
};

/** A log's task id (or, when it gives none, the record's key) as a 0-based position, or null when it is not one. */
function positionOf(id: unknown): number | null {
  const n = typeof id === "number" ? id : typeof id === "string" && /^\d+$/.test(id.trim()) ? Number(id) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

const DATASET_BY_FILE: Array<[RegExp, string]> = [
  [/nl2bash_fs_?(\d)/, "nl2bash-fs$1"],
  [/test_queries/, "nl2bash-test"],
  [/spider/, "spider-dev"],
  [/mbpp/, "mbpp"],
  [/ctf/, "ctf"],
];
const DEFAULT_DATASET: Record<string, string> = { bash: "nl2bash-fs1", sql: "spider-dev", python: "mbpp", ctf: "ctf" };

function datasetFromRecordPath(p: string | undefined): string | undefined {
  if (!p) return undefined;
  const base = path.basename(p);
  for (const [re, name] of DATASET_BY_FILE) {
    const m = base.match(re);
    if (m) return name.replace("$1", m[1] ?? "");
  }
  return undefined;
}

const envName = z.string().transform((s, ctx) => {
  const e = s.replace(/^ic_/, "");
  if (!["bash", "sql", "python", "ctf"].includes(e)) {
    ctx.addIssue({ code: "custom", message: `unknown environment ${JSON.stringify(s)}` });
    return z.NEVER;
  }
  return e as "bash" | "sql" | "python" | "ctf";
});
const text = z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())]).transform((v) => (typeof v === "string" ? v : JSON.stringify(v)));
const numberLike = z.union([z.number(), z.boolean()]).transform(Number);

/** InterCode's results format: one record per task, the turn history as parallel arrays. */
export const resultsRecordSchema = z.looseObject({
  environment: envName,
  dataset: z.string().optional(),
  task_id: z.union([z.number(), z.string()]).optional(),
  query: z.string(),
  gold: text.optional(),
  hardness: z.string().optional(),
  db: z.string().optional(),
  turn_history: z.looseObject({
    actions: z.array(z.string()),
    observations: z.array(z.unknown()),
    rewards: z.array(numberLike.nullable()).optional(),
    valid_action: z.array(z.boolean().nullable()).optional(),
    /** ReAct: the model's thought before each action. */
    thoughts: z.array(z.string()).optional(),
    /** Plan & Solve: the plan step each action carries out (refinement turns have none). */
    steps: z.array(z.string()).optional(),
  }),
  info: z.unknown().optional(),
  summary: z.looseObject({
    max_reward: numberLike,
    max_reward_idx: z.number().int().nullable().optional(),
    turns_taken: z.number().int().nonnegative().optional(),
    turns_max: z.number().int().positive().optional(),
  }),
});

type ResultsRecord = z.infer<typeof resultsRecordSchema>;

const ENVS = new Set(["bash", "sql", "python", "ctf"]);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const optString = (v: unknown) => v === undefined || typeof v === "string";
const optArrayOf = (v: unknown, ok: (x: unknown) => boolean) => v === undefined || (Array.isArray(v) && v.every(ok));

/**
 * The results record as `resultsRecordSchema` would give it, read without zod, or null when the
 * record is anything but the plain common case (then zod reads it, and names what is wrong). It
 * accepts only what the schema accepts and gives what the schema gives for every field the
 * importer reads; it copies nothing, which matters at thousands of records a second (zod copies
 * each record and its arrays).
 */
export function readPlainResultsRecord(v: unknown): ResultsRecord | null {
  if (!isObject(v)) return null;
  const env = typeof v.environment === "string" ? v.environment.replace(/^ic_/, "") : null;
  if (!env || !ENVS.has(env)) return null;
  if (typeof v.query !== "string" || !optString(v.dataset) || !optString(v.gold) || !optString(v.hardness) || !optString(v.db)) return null;
  if (!(v.task_id === undefined || typeof v.task_id === "string" || (typeof v.task_id === "number" && Number.isFinite(v.task_id)))) return null;
  const th = v.turn_history;
  const sum = v.summary;
  if (!isObject(th) || !isObject(sum)) return null;
  if (!optArrayOf(th.actions, (x) => typeof x === "string") || th.actions === undefined || !Array.isArray(th.observations)) return null;
  if (!optArrayOf(th.rewards, (x) => x === null || (typeof x === "number" && Number.isFinite(x)))) return null;
  if (!optArrayOf(th.valid_action, (x) => x === null || typeof x === "boolean")) return null;
  if (!optArrayOf(th.thoughts, (x) => typeof x === "string") || !optArrayOf(th.steps, (x) => typeof x === "string")) return null;
  if (typeof sum.max_reward !== "number" || !Number.isFinite(sum.max_reward)) return null;
  if (!(sum.max_reward_idx === undefined || sum.max_reward_idx === null || Number.isSafeInteger(sum.max_reward_idx))) return null;
  if (!(sum.turns_taken === undefined || (Number.isSafeInteger(sum.turns_taken) && (sum.turns_taken as number) >= 0))) return null;
  if (!(sum.turns_max === undefined || (Number.isSafeInteger(sum.turns_max) && (sum.turns_max as number) > 0))) return null;
  return { ...v, environment: env } as ResultsRecord;
}

/** InterCode's environment log format (its human-study files): the trajectory as a list of steps. */
export const envLogRecordSchema = z.looseObject({
  environment: envName,
  query_idx: z.union([z.number(), z.string()]).optional(),
  task_id: z.union([z.number(), z.string()]).optional(),
  query: z.string(),
  gold: text.optional(),
  hardness: z.string().optional(),
  db: z.string().optional(),
  reward: numberLike,
  trajectory: z.array(z.looseObject({ action: z.string(), observation: z.unknown() })),
  info: z.unknown().optional(),
});

function obsText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  return JSON.stringify(v);
}

function zodReason(err: z.ZodError): string {
  const i = err.issues[0];
  return `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}${err.issues.length > 1 ? ` (and ${err.issues.length - 1} more problems)` : ""}`;
}

/**
 * Environment logs record no valid_action flag. For SQL the environment's own failure message is
 * unambiguous (it starts "Error executing query"), so whether the action executed is read from
 * it; for the other environments it stays unknown (null) rather than guessed.
 */
export function executedOk(environment: string, observation: string): boolean | null {
  if (environment === "sql") return !/^Error executing query/.test(observation);
  return null;
}

/** A record that cannot be imported, with where and why. */
export class RecordError extends Error {}

/**
 * The idempotency key of an imported record: the file's content hash, the record's key and what
 * the file name or flags say about who played. Importing the same file again (under any path)
 * gives the same keys; the same file imported with other flags is a different attribution.
 */
function keyOf(format: string, meta: LogMeta, recordKey: string, fileHash: string): string {
  // The hash of JSON.stringify([format, ...meta, recordKey, fileHash]); the part before the record
  // key is the same for a whole file, so it is hashed once and copied.
  const prefix = JSON.stringify([
    format,
    meta.environment ?? null,
    meta.dataset ?? null,
    meta.model ?? null,
    meta.policy ?? null,
    meta.turnLimit ?? null,
    meta.human ?? false,
  ]);
  if (keyPrefix.text !== prefix) keyPrefix = { text: prefix, hash: createHash("sha256").update(prefix.slice(0, -1) + ",") };
  return keyPrefix.hash
    .copy()
    .update(JSON.stringify(recordKey) + "," + JSON.stringify(fileHash) + "]")
    .digest("hex")
    .slice(0, 40);
}
let keyPrefix: { text: string; hash: ReturnType<typeof createHash> } = { text: "", hash: createHash("sha256") };

/** A reward as logged: kept whatever its value (a value outside [0, 1] is flagged), only a non-number refused. */
function loggedReward(r: number, where: string, flags: Set<EpisodeFlag>): number {
  if (!Number.isFinite(r)) throw new RecordError(`${where}: reward ${r} is not a finite number`);
  if (r < 0) flags.add("negative-reward");
  else if (r > 1) flags.add("reward-above-one");
  return r;
}

const BLOCKED_ACTION = "blocked";
const FORCED_SUBMIT_ACTION = "submit";
const EXECUTE_WRAPPED = /^\s*execute\s*\[/;

/**
 * What a results record's turn history holds that InterCode's loops log oddly, read as they log
 * it: Try Again ends an episode whose model reply could not be parsed with the action `blocked`,
 * a reward of 0 and no observation or valid_action; ReAct, at its turn limit, appends a `submit`
 * that turns_taken leaves out. Adds what it finds to `flags`; throws RecordError only when a
 * list is longer than the actions (a value with no action to hold it).
 */
function historyFlags(th: ResultsRecord["turn_history"], turnsTaken: number | undefined, flags: Set<EpisodeFlag>): void {
  const n = th.actions.length;
  if (n === 0) flags.add("no-actions");
  const blocked = n > 0 && th.actions[n - 1].trim() === BLOCKED_ACTION;
  if (blocked) flags.add("blocked");
  if (th.observations.length < n) flags.add("missing-observation");
  for (const [name, arr] of [
    ["observations", th.observations],
    ["rewards", th.rewards],
    ["valid_action", th.valid_action],
    ["thoughts", th.thoughts],
    ["steps", th.steps],
  ] as const) {
    // A history with no action at all is stored as logged (InterCode's SQL Plan & Solve task 93:
    // `actions: []`, `rewards: [0]`, its plan gave no step): the values with no action to hold
    // them are the episode's own (summary), and `no-actions` says so.
    if (arr && arr.length > n && n > 0) throw new RecordError(`turn_history: ${n} actions but ${arr.length} ${name}`);
  }
  const short = (arr: unknown[] | undefined) => arr !== undefined && arr.length < n && !(blocked && arr.length === n - 1);
  if (short(th.rewards) || short(th.valid_action) || (short(th.observations) && !blocked)) flags.add("ragged-history");
  if (th.actions.some((a) => EXECUTE_WRAPPED.test(a))) flags.add("execute-wrapped");
  if (turnsTaken !== undefined && turnsTaken !== n) {
    flags.add(n === turnsTaken + 1 && th.actions[n - 1].trim() === FORCED_SUBMIT_ACTION ? "forced-submit" : "turns-mismatch");
  }
}

function infoParts(info: unknown): { breakdown?: unknown; agentObservation: string | null; goldObservation: string | null } {
  if (!info || typeof info !== "object") return { agentObservation: null, goldObservation: null };
  const o = info as Record<string, unknown>;
  return {
    breakdown: o.reward && typeof o.reward === "object" ? o.reward : undefined,
    agentObservation: o.agent_obs === undefined ? null : obsText(o.agent_obs),
    goldObservation: o.eval_obs === undefined ? null : obsText(o.eval_obs),
  };
}

/**
 * InterCode's run format (its Plan & Solve runs): `{meta: {env, data_path, refine, refine_turns,
 * ...}, logs: {<task index>: <results record>}}`. Null when `v` is not one.
 */
export function readRunLog(v: unknown): { meta: Record<string, unknown>; logs: Record<string, unknown> } | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const isRecord = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);
  if (!isRecord(o.meta) || !isRecord(o.logs) || detectRecordFormat(o)) return null;
  return { meta: o.meta, logs: o.logs };
}

/**
 * What a run's `meta` says about who played and how: the environment (`env`), the dataset (from
 * `data_path`), the model when named, and the policy (a run with `refine` settings is Plan &
 * Solve: `plan-solve`, or `plan-solve-refine-<refine_turns>` when it refined).
 */
export function metaFromRunMeta(m: Record<string, unknown>): LogMeta {
  const out: LogMeta = {};
  const env = typeof m.env === "string" ? m.env.replace(/^ic_/, "") : undefined;
  if (env && ENVS.has(env)) out.environment = env as LogMeta["environment"];
  const dataset = datasetFromRecordPath(typeof m.data_path === "string" ? m.data_path : undefined);
  if (dataset) out.dataset = dataset;
  if (typeof m.model === "string" && m.model) out.model = m.model;
  if ("refine" in m || "refine_turns" in m) {
    const turns = Number(m.refine_turns);
    out.policy = m.refine && Number.isInteger(turns) && turns > 0 ? `plan-solve-refine-${turns}` : "plan-solve";
  }
  return out;
}

/** Which InterCode format a record is in, or null when it is neither (e.g. a run configuration). */
export function detectRecordFormat(v: unknown): "results" | "envlog" | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if ("turn_history" in o || "summary" in o) return "results";
  if ("trajectory" in o) return "envlog";
  return null;
}

/**
 * Converts one record of an InterCode log into an episode. `meta` is what the flags and the file
 * name say (flags first). Throws RecordError with the reason when the record is unusable.
 */
export function parseInterCodeRecord(recordKey: string, value: unknown, meta: LogMeta, sourceFile: string, importedAt: Date, fileHash: string): ParsedEpisode {
  const format = detectRecordFormat(value);
  if (!format) throw new RecordError("neither a results record (turn_history, summary) nor an environment-log record (trajectory)");
  const common = (environment: "bash" | "sql" | "python" | "ctf", datasetPath: string | undefined) => {
    if (meta.environment && meta.environment !== environment) throw new RecordError(`environment ${environment} differs from the file's (${meta.environment})`);
    const human = meta.human === true;
    const implied = datasetFromRecordPath(datasetPath) ?? DEFAULT_DATASET[environment];
    const dataset = meta.dataset ?? implied;
    const keyed = "impliedDataset" in meta && dataset === (meta.impliedDataset ?? implied) ? { ...meta, dataset: meta.impliedDataset } : meta;
    return {
      environment,
      dataset,
      playerKind: human ? ("human" as const) : meta.model ? ("model" as const) : ("imported" as const),
      annotator: null,
      model: human ? null : (meta.model ?? null),
      policy: human ? null : (meta.policy ?? null),
      mode: "import" as const,
      status: "submitted" as const,
      startedAt: importedAt.toISOString(),
      sourceFile,
      sourceKey: keyOf(format, keyed, recordKey, fileHash),
    };
  };
  const idx = Number(recordKey);
  const taskIndex = Number.isInteger(idx) && idx >= 0 ? idx : null;

  if (format === "results") {
    let r = readPlainResultsRecord(value);
    if (!r) {
      const parsed = resultsRecordSchema.safeParse(value);
      if (!parsed.success) throw new RecordError(zodReason(parsed.error));
      r = parsed.data;
    }
    const th = r.turn_history;
    const n = th.actions.length;
    const turnsTaken = r.summary.turns_taken;
    const flags = new Set<EpisodeFlag>();
    historyFlags(th, turnsTaken, flags);
    const reward = loggedReward(r.summary.max_reward, "summary.max_reward", flags);
    const rewards = (th.rewards ?? []).map((x, i) => (x === null ? null : loggedReward(x, `turn_history.rewards[${i}]`, flags)));
    const success = reward >= 1;
    let solvedAtTurn: number | null = null;
    if (success) {
      const first = rewards.findIndex((x) => x !== null && x >= 1);
      solvedAtTurn = first >= 0 ? first + 1 : Math.min(n, (r.summary.max_reward_idx ?? n - 1) + 1) || 1;
      // A forced final submit is not a turn in the log's count: the episode was solved by its last counted turn.
      if (turnsTaken !== undefined && turnsTaken > 0) solvedAtTurn = Math.min(solvedAtTurn, turnsTaken);
    }
    const c = common(r.environment, r.dataset);
    const turnLimit = meta.turnLimit ?? r.summary.turns_max ?? Math.max(1, n);
    // ReAct's thoughts and Plan & Solve's plan steps are what the model said before each action.
    const thoughts = th.thoughts ?? th.steps;
    return {
      ...c,
      // The log's own id; under the `index` rule its position too, which the import links to the
      // task set's id (lib/trajectories/task-links.ts).
      taskId: String(r.task_id ?? recordKey),
      taskIndex: TASK_ID_RULES.results[r.environment] === "index" ? positionOf(r.task_id ?? recordKey) : taskIndex,
      query: r.query,
      gold: r.gold ?? null,
      hardness: r.hardness ?? null,
      db: r.db ?? (c.dataset.startsWith("nl2bash-") ? c.dataset.slice("nl2bash-".length) : null),
      turnLimit,
      reward,
      success,
      solvedAtTurn,
      flags: [...flags],
      turnsTaken: turnsTaken ?? null,
      ...infoParts(r.info),
      turns: th.actions.map((action, i) => ({
        index: i,
        actor: c.playerKind === "human" ? ("human" as const) : ("model" as const),
        action,
        // A missing observation (a blocked last action) is stored empty; the episode's flags say why.
        observation: i < th.observations.length ? obsText(th.observations[i]) : "",
        ok: th.valid_action ? (th.valid_action[i] ?? null) : null,
        reward: th.rewards ? (rewards[i] ?? null) : null,
        thought: thoughts?.[i] ?? null,
      })),
    };
  }

  const parsed = envLogRecordSchema.safeParse(value);
  if (!parsed.success) throw new RecordError(zodReason(parsed.error));
  const r = parsed.data;
  const flags = new Set<EpisodeFlag>();
  const reward = loggedReward(r.reward, "reward", flags);
  const n = r.trajectory.length;
  if (n === 0) flags.add("no-actions");
  const c = common(r.environment, undefined);
  const info = infoParts(r.info);
  return {
    ...c,
    taskId: String(r.task_id ?? r.query_idx ?? recordKey),
    taskIndex: TASK_ID_RULES.envlog[r.environment] === "index" ? positionOf(r.query_idx ?? r.task_id ?? recordKey) : taskIndex,
    query: r.query,
    gold: r.gold ?? null,
    hardness: r.hardness ?? null,
    db: r.db ?? null,
    turnLimit: meta.turnLimit ?? Math.max(1, n),
    reward,
    success: reward >= 1,
    solvedAtTurn: reward >= 1 ? Math.max(1, n) : null,
    flags: [...flags],
    ...info,
    turns: r.trajectory.map((s, i) => ({
      index: i,
      actor: c.playerKind === "model" ? ("model" as const) : ("human" as const),
      action: s.action,
      observation: obsText(s.observation),
      ok: executedOk(c.environment, obsText(s.observation)),
      reward: null,
    })),
  };
}
