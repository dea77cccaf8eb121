import { kendallTau } from "./kendall";
import { type PyValue, pyReprTuple } from "./python-repr";
import { clamp01, pyRound } from "./round";
import type { RewardResult, SqlBreakdown } from "./types";

/** A result row: its values in column order. */
export type SqlRow = readonly PyValue[];

/** What the SQL environment gathered: the agent's last result and gold's. */
export interface SqlRewardInput {
  /**
   * Rows of the agent's last query, or null when its last statement returned no result set
   * (an INSERT, or no query at all): InterCode scored that 0.
   */
  agentRows: readonly SqlRow[] | null | undefined;
  /** Set when the agent's last query failed: the reward is 0. */
  agentError?: string | null;
  /** Gold's rows. A gold query that failed or returned no result set counts as no rows, as in InterCode. */
  goldRows: readonly SqlRow[] | null | undefined;
}

/**
 * InterCode's SQL reward.
 *
 * Each row is turned into the text Python's `str(row_tuple)` gives (see python-repr: the SQL layer
 * must mark floats and decimals), and rows are compared as those texts.
 * 1. Both results empty → 1. The agent's query failed, or gave no result set → 0.
 * 2. Otherwise IoU = |A ∩ B| / |A ∪ B| over the two multisets of rows (min and max multiplicities).
 * 3. When they share rows: take the shared rows in the agent's order and in gold's order (each row as
 *    many times as it is shared, first occurrences first), and tau = Kendall tau-b of those two
 *    text sequences (scipy's, comparing texts by code point). When tau is defined, the reward is
 *    round(tau × IoU, 2); otherwise (one shared row, or all of them alike) it is IoU as it is.
 *
 * InterCode did not round in the second case and did not clamp, so a reversed order gives it a
 * negative reward; `raw` keeps that number, `reward` is it rounded to 2 and kept in [0, 1]. The
 * breakdown's overlap is IoU rounded to 2 and order is tau rounded to 2 (null when undefined).
 * Never throws.
 */
export function sqlReward(input: SqlRewardInput): RewardResult<SqlBreakdown> {
  if (input.agentError != null || !Array.isArray(input.agentRows)) {
    const error = input.agentError != null ? String(input.agentError) : "the last statement returned no rows to compare";
    return { reward: 0, raw: 0, breakdown: { kind: "sql", overlap: 0, order: null, error } };
  }
  const agent = input.agentRows.map(rowText);
  const gold = Array.isArray(input.goldRows) ? input.goldRows.map(rowText) : [];
  if (agent.length === 0 && gold.length === 0) {
    return { reward: 1, raw: 1, breakdown: { kind: "sql", overlap: 1, order: null } };
  }

  const agentCounts = countTexts(agent);
  const goldCounts = countTexts(gold);
  const shared = new Map<string, number>();
  let intersection = 0;
  let union = 0;
  for (const [text, a] of agentCounts) {
    const g = goldCounts.get(text) ?? 0;
    if (g > 0) shared.set(text, Math.min(a, g));
    intersection += Math.min(a, g);
    union += Math.max(a, g);
  }
  for (const [text, g] of goldCounts) if (!agentCounts.has(text)) union += g;
  const iou = (intersection * 1) / union;

  let raw = iou;
  let tau: number | null = null;
  if (shared.size > 0) {
    tau = kendallTau(sharedInOrder(agent, shared), sharedInOrder(gold, shared));
    if (tau !== null) raw = pyRound(tau * iou, 2);
  }
  return {
    reward: clamp01(pyRound(raw, 2)),
    raw,
    breakdown: { kind: "sql", overlap: pyRound(iou, 2), order: tau === null ? null : pyRound(tau, 2) },
  };
}

function rowText(row: SqlRow): string {
  return Array.isArray(row) ? pyReprTuple(row) : pyReprTuple([row as unknown as PyValue]);
}

function countTexts(texts: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of texts) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** The rows of `texts` that are shared, in order, each kept only as many times as it is shared. */
function sharedInOrder(texts: readonly string[], shared: ReadonlyMap<string, number>): string[] {
  const left = new Map(shared);
  const out: string[] = [];
  for (const t of texts) {
    const n = left.get(t) ?? 0;
    if (n > 0) {
      left.set(t, n - 1);
      out.push(t);
    }
  }
  return out;
}
