import "server-only";
import type { SqlTask } from "@/lib/datasets/types";
import { pyReprTuple } from "@/lib/reward/python-repr";
import { sqlReward } from "@/lib/reward/sql";
import { ACTION_TIMEOUT_MS } from "@/lib/sandbox/limits";
import type { SqlCell, SqlEngine } from "@/lib/sql/types";
import { goldResult } from "./sql";

/**
 * The SQL gold check: each task's gold query is submitted as the agent's last query, on its own
 * fresh copy of the database, and scored against gold's result as an episode would be. With a
 * `reference` engine, gold's result comes from that engine instead (e.g. SQLite's answers
 * scored against MariaDB's), which measures how faithful one engine is to the other.
 */

export interface GoldCheckFailure {
  taskId: string;
  reward: number;
  /** Why, in words: "<category>: <detail>". */
  reason: string;
  category: FailureCategory;
}

export type FailureCategory = "gold-error" | "agent-error" | "order" | "case" | "numeric-format" | "rows-differ" | "no-result-set";

export interface GoldCheckReport {
  tasks: number;
  perfect: number;
  meanReward: number;
  failures: GoldCheckFailure[];
  /** Failures per category. */
  categories: Partial<Record<FailureCategory, number>>;
  engine: string;
  reference?: string;
}

export interface GoldCheckSqlOptions {
  tasks: SqlTask[];
  engine: SqlEngine;
  /** Score against this engine's gold results instead of `engine`'s own. */
  reference?: SqlEngine;
  timeoutMs?: number;
  /** Called after each task. */
  onProgress?: (done: number, total: number) => void;
  /** Tasks run at once (default 2). */
  concurrency?: number;
}

function texts(rows: SqlCell[][]): string[] {
  return rows.map((r) => pyReprTuple(r));
}

function sameMultiset(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}

/** Numbers printed alike whatever their Python type: 5, 5.0, Decimal('5.0000') → 5. */
function numericNormal(row: string): string {
  return row.replace(/Decimal\('(-?[\d.]+)'\)/g, "$1").replace(/-?\d+\.\d+|-?\d+/g, (n) => String(Math.round(Number(n) * 1e6) / 1e6));
}

/** Explains why the agent's rows (engine) differ from gold's (reference). */
function classify(agent: SqlCell[][], gold: SqlCell[][]): { category: FailureCategory; detail: string } {
  const a = texts(agent);
  const g = texts(gold);
  if (sameMultiset(a, g)) return { category: "order", detail: "the same rows in a different order (ORDER BY ties or no ORDER BY)" };
  if (
    sameMultiset(
      a.map((t) => t.toLowerCase()),
      g.map((t) => t.toLowerCase()),
    )
  )
    return { category: "case", detail: "the same rows but for letter case (collation)" };
  if (sameMultiset(a.map(numericNormal), g.map(numericNormal)))
    return { category: "numeric-format", detail: "the same values with other numeric types or precision (int/float/Decimal)" };
  const onlyA = a.filter((t) => !g.includes(t)).slice(0, 2);
  const onlyG = g.filter((t) => !a.includes(t)).slice(0, 2);
  return { category: "rows-differ", detail: `${a.length} rows vs ${g.length}; e.g. got ${onlyA.join(" ") || "-"} where gold has ${onlyG.join(" ") || "-"}` };
}

/**
 * Why a gold query is not valid MySQL, for the known Spider cases (they failed on InterCode's
 * MySQL 8 as well); null when none applies.
 */
export function explainInvalidGold(gold: string): string | null {
  if (/\bFROM\s+SHOW\b/i.test(gold)) return "it reads a table named SHOW, a reserved word in MySQL, unquoted";
  if (/\b(COUNT|SUM|AVG|MIN|MAX)\s+\(/i.test(gold))
    return "a space between an aggregate function's name and its parenthesis, which MySQL's default sql_mode (no IGNORE_SPACE) rejects";
  if (/\bFROM\s*\(\s*SELECT\b[\s\S]*\)\s*;?\s*$/i.test(gold))
    return 'a derived table without an alias, which MySQL rejects ("Every derived table must have its own alias")';
  return null;
}

/** Runs the gold check over `tasks`. */
export async function goldCheckSql(options: GoldCheckSqlOptions): Promise<GoldCheckReport> {
  const { tasks, engine } = options;
  const reference = options.reference ?? engine;
  const limits = { timeoutMs: options.timeoutMs ?? ACTION_TIMEOUT_MS };
  const failures: GoldCheckFailure[] = [];
  const rewards: number[] = new Array(tasks.length).fill(0);
  let next = 0;
  let done = 0;

  const checkOne = async (task: SqlTask, i: number) => {
    const gold = await goldResult(reference, task, limits);
    const session = await engine.open(task.db);
    let agent;
    try {
      agent = await session.query(task.gold, limits);
    } finally {
      await session.close();
    }
    const agentRows = agent.ok ? (agent.result.resultSet ? agent.result.rows : null) : null;
    const { reward, breakdown } = sqlReward({ agentRows, agentError: agent.ok ? null : agent.error, goldRows: gold.rows });
    rewards[i] = reward;
    if (reward >= 1) return;
    let category: FailureCategory;
    let detail: string;
    if (gold.error !== undefined) {
      category = "gold-error";
      const why = explainInvalidGold(task.gold);
      detail = `gold fails on ${reference.id}: ${gold.error}${why ? ` (not valid MySQL: ${why})` : ""}`;
    } else if (!agent.ok) {
      category = "agent-error";
      const why = explainInvalidGold(task.gold);
      detail = `gold fails on ${engine.id}: ${agent.error}${why ? ` (not valid MySQL: ${why})` : ""}`;
    } else if (agentRows === null) {
      category = "no-result-set";
      detail = "gold returns no result set";
    } else {
      ({ category, detail } = classify(agentRows, gold.rows ?? []));
      detail += ` (overlap ${breakdown.overlap}, order ${breakdown.order})`;
    }
    failures.push({ taskId: task.id, reward, reason: `${category}: ${detail}`, category });
  };

  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      await checkOne(tasks[i], i);
      options.onProgress?.(++done, tasks.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 2) }, worker));

  failures.sort((a, b) => Number(a.taskId) - Number(b.taskId) || a.taskId.localeCompare(b.taskId));
  const categories: GoldCheckReport["categories"] = {};
  for (const f of failures) categories[f.category] = (categories[f.category] ?? 0) + 1;
  const sum = rewards.reduce((s, r) => s + r, 0);
  return {
    tasks: tasks.length,
    perfect: rewards.filter((r) => r >= 1).length,
    meanReward: tasks.length ? Math.round((sum / tasks.length) * 10000) / 10000 : 0,
    failures,
    categories,
    engine: engine.id,
    ...(options.reference ? { reference: reference.id } : {}),
  };
}
