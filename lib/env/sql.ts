import "server-only";
import { parseSubmit } from "@/lib/env/submit";
import type { SqlTask, Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { pyReprRows, pyReprRowsConcatenated } from "@/lib/reward/python-repr";
import { sqlReward } from "@/lib/reward/sql";
import { resolveLimits, timeoutNote, truncationNote, type Limits } from "@/lib/sandbox/limits";
import { getSqlEngine } from "@/lib/sql/engines";
import { toTextTable } from "@/lib/sql/text-table";
import type { QueryOutcome, SqlCell, SqlEngine, SqlSession } from "@/lib/sql/types";
import { DEFAULT_PROFILE, profileValue, type ProfileValue } from "./profiles";
import type { Environment, EnvironmentOptions, StepOptions, StepResult, SubmitResult } from "./types";

/**
 * The SQL environment: each episode queries its own fresh copy of the task's database (SQLite
 * in memory by default, or a scratch copy on a MySQL-compatible server). An action is SQL; its
 * observation is the result rows as Python tuples, back to back, the way InterCode's logs show
 * them. Submitting scores the last query's rows against the gold query's (IoU × Kendall tau).
 */

/** What the agent's last query gave, as the reward needs it. */
type LastResult = { rows: SqlCell[][] | null; error?: string } | null;

export interface SqlEnvironmentOptions extends EnvironmentOptions {
  /** Use this engine instead of the shared one chosen by sqlUrl / IC_SQL_URL. */
  engine?: SqlEngine;
}

/** The note added when a killed query made the session start over from the initial database. */
export const RESET_NOTE = "\n[the database was restored to the task's initial state]";

const goldCache = new Map<string, Promise<{ rows: SqlCell[][] | null; error?: string }>>();

/** Gold's result on a fresh copy of the task's database, computed once per engine and task. */
export function goldResult(
  engine: SqlEngine,
  task: Pick<SqlTask, "db" | "gold">,
  limits: Pick<Limits, "timeoutMs">,
): Promise<{ rows: SqlCell[][] | null; error?: string }> {
  const key = `${engine.id}\0${task.db}\0${task.gold}`;
  let hit = goldCache.get(key);
  if (!hit) {
    hit = (async () => {
      const session = await engine.open(task.db);
      try {
        const r = await session.query(task.gold, { timeoutMs: limits.timeoutMs });
        if (!r.ok) return { rows: null, error: r.error };
        return { rows: r.result.resultSet ? r.result.rows : null };
      } finally {
        await session.close();
      }
    })();
    hit.catch(() => goldCache.delete(key));
    goldCache.set(key, hit);
  }
  return hit;
}

/** Caps text at `limit` bytes of UTF-8 (whole characters), with the truncation note. */
export function capObservation(text: string, limit: number, alreadyTruncated = false): { text: string; truncated: boolean } {
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit && !alreadyTruncated) return { text, truncated: false };
  let cut = text;
  if (bytes > limit) {
    cut = Buffer.from(text).subarray(0, limit).toString("utf8");
    if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  }
  return { text: cut + truncationNote(limit), truncated: true };
}

/** The observation of a query outcome; rows in the form profile row `sql.observation` names. */
export function observationOf(
  outcome: QueryOutcome,
  limits: Pick<Limits, "outputBytes" | "timeoutMs">,
  form: ProfileValue<"sql.observation"> = "row-tuples",
): { text: string; truncated: boolean } {
  if (!outcome.ok) {
    let text = `Error executing query: ${outcome.error}`;
    if (outcome.timedOut) text += timeoutNote(limits.timeoutMs);
    if (outcome.reset) text += RESET_NOTE;
    return { text, truncated: false };
  }
  const r = outcome.result;
  if (!r.resultSet) return { text: `Query OK, ${r.changes ?? 0} row${r.changes === 1 ? "" : "s"} affected`, truncated: false };
  return capObservation(form === "str-of-row-list" ? pyReprRows(r.rows) : pyReprRowsConcatenated(r.rows), limits.outputBytes, r.truncated);
}

export class SqlEnvironment implements Environment {
  readonly env = "sql" as const;
  task: SqlTask | null = null;
  private session: SqlSession | null = null;
  private engine: SqlEngine | null;
  private readonly limits: Limits;
  private last: LastResult = null;
  private lastObservation = "";
  private done = false;

  constructor(private readonly options: SqlEnvironmentOptions = {}) {
    this.engine = options.engine ?? null;
    this.limits = resolveLimits(options.limits);
  }

  /** The engine episodes run on (the shared one unless given). */
  async getEngine(): Promise<SqlEngine> {
    if (!this.engine) this.engine = await getSqlEngine(this.options.sqlUrl);
    return this.engine;
  }

  async reset(task: Task): Promise<{ observation: string }> {
    if (task.env !== "sql") throw new BadInputError(`a ${task.env} task cannot run in the sql environment`, "task");
    await this.close();
    const engine = await this.getEngine();
    this.session = await engine.open(task.db);
    this.task = task;
    this.done = false;
    this.last = null;
    this.lastObservation = "";
    return { observation: task.query };
  }

  private live(): { session: SqlSession; task: SqlTask } {
    if (!this.session || !this.task) throw new BadInputError("the episode has not started (call reset first)", "episode");
    if (this.done) throw new BadInputError("the episode has ended (it was submitted)", "episode");
    return { session: this.session, task: this.task };
  }

  async step(action: string, options: StepOptions = {}): Promise<StepResult> {
    const { session } = this.live();
    const profile = this.options.profile ?? DEFAULT_PROFILE;
    // Under InterCode's loop only a bare `submit` submits; `submit;` goes to the database.
    if (parseSubmit(action, { exact: profileValue(profile, "sql.submit-semicolon") === "runs-as-sql" })) {
      const submitted = await this.submit();
      return { observation: submitted.agentObservation, ok: true, done: true, submitted };
    }
    const outcome = await session.query(action, { timeoutMs: this.limits.timeoutMs, signal: options.signal });
    const obs = observationOf(outcome, this.limits, profileValue(profile, "sql.observation"));
    this.lastObservation = obs.text;
    this.last = outcome.ok ? { rows: outcome.result.resultSet ? outcome.result.rows : null } : { rows: null, error: outcome.error };
    options.onOutput?.(obs.text);
    return {
      observation: obs.text,
      ok: outcome.ok,
      done: false,
      ...(!outcome.ok && outcome.timedOut ? { timedOut: true } : {}),
      ...(!outcome.ok && outcome.aborted ? { aborted: true } : {}),
      ...(obs.truncated ? { truncated: true } : {}),
      ...(outcome.ok && outcome.result.resultSet ? { columns: outcome.result.columns } : {}),
      ...(outcome.ok && outcome.result.resultSet ? { table: toTextTable(outcome.result.columns, outcome.result.rows, outcome.result.truncated) } : {}),
    };
  }

  async evaluate(): Promise<SubmitResult> {
    const { task } = this.live();
    const engine = await this.getEngine();
    const gold = await goldResult(engine, task, this.limits);
    const last = this.last;
    const { reward, breakdown } = sqlReward({
      agentRows: last?.rows ?? null,
      agentError: last === null ? "no query was run" : (last.error ?? null),
      goldRows: gold.rows,
    });
    const goldObservation =
      gold.error !== undefined ? `Error executing query: ${gold.error}` : capObservation(pyReprRowsConcatenated(gold.rows ?? []), this.limits.outputBytes).text;
    return { reward, breakdown, goldObservation, agentObservation: this.lastObservation };
  }

  async submit(): Promise<SubmitResult> {
    const r = await this.evaluate();
    this.done = true;
    return r;
  }

  async close(): Promise<void> {
    const s = this.session;
    this.session = null;
    await s?.close();
  }
}

/** Starts an SQL environment (call reset to begin an episode). */
export function createSqlEnvironment(options: SqlEnvironmentOptions = {}): SqlEnvironment {
  return new SqlEnvironment(options);
}
