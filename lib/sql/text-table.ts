/**
 * A result set for people: cells as the mysql client prints them, and the boxed text table it
 * draws. Only the playground's console uses it; what a model is shown and what is stored stays
 * InterCode's text (lib/env/sql.ts observationOf). Pure: the browser imports formatTextTable.
 */
import { pyRepr, type PyValue } from "@/lib/reward/python-repr";

/** A result set as display text: column names and one string per cell. */
export interface TextTable {
  columns: string[];
  rows: string[][];
  /** Rows beyond these were left out (the engine's cap, or the display cap below). */
  truncated: boolean;
}

/** Most rows drawn in the console (the rest are counted, not drawn). */
export const TEXT_TABLE_MAX_ROWS = 200;

const pad2 = (n: number | undefined) => String(n ?? 0).padStart(2, "0");

/** One cell as the mysql client shows it: NULL, bare numbers and strings, ISO dates. */
export function sqlCellText(v: PyValue): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "1" : "0";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (v instanceof Uint8Array) return new TextDecoder("utf-8", { fatal: false }).decode(v);
  if (Array.isArray(v)) return pyRepr(v);
  const t = v as { py?: string } & Record<string, unknown>;
  switch (t.py) {
    case "float":
      return String(t.value);
    case "decimal":
      return String(t.text);
    case "date":
      return `${t.year}-${pad2(t.month as number)}-${pad2(t.day as number)}`;
    case "datetime":
      return `${t.year}-${pad2(t.month as number)}-${pad2(t.day as number)} ${pad2(t.hour as number)}:${pad2(t.minute as number)}:${pad2(t.second as number)}`;
    default:
      return pyRepr(v);
  }
}

/** A result set (columns and typed rows) as a TextTable, capped at TEXT_TABLE_MAX_ROWS rows. */
export function toTextTable(columns: readonly string[], rows: readonly (readonly PyValue[])[], truncated = false): TextTable {
  return {
    columns: [...columns],
    rows: rows.slice(0, TEXT_TABLE_MAX_ROWS).map((r) => r.map(sqlCellText)),
    truncated: truncated || rows.length > TEXT_TABLE_MAX_ROWS,
  };
}

// Control characters would break the box: shown escaped, as \n and \t.
const flat = (s: string) => s.replace(/\r?\n/g, "\\n").replace(/\t/g, "\\t");

/**
 * The boxed table the mysql client prints, with its count line:
 * ```
 * +----+-------+
 * | id | name  |
 * +----+-------+
 * |  1 | Alice |
 * +----+-------+
 * 1 row in set
 * ```
 * Numbers are right-aligned, text left-aligned; an empty result prints "Empty set".
 */
export function formatTextTable(t: TextTable): string {
  const count = (n: number) => `${n} row${n === 1 ? "" : "s"} in set${t.truncated ? " (more rows were left out)" : ""}`;
  if (t.rows.length === 0) return t.truncated ? count(0) : "Empty set";
  const header = t.columns.map(flat);
  const body = t.rows.map((r) => r.map(flat));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const numeric = header.map((_, i) => body.every((r) => r[i] === "NULL" || /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(r[i] ?? "")));
  const rule = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  const line = (cells: string[], align: boolean) =>
    `| ${cells.map((c, i) => (align && numeric[i] ? (c ?? "").padStart(widths[i]) : (c ?? "").padEnd(widths[i]))).join(" | ")} |`;
  return [rule, line(header, false), rule, ...body.map((r) => line(r, true)), rule, count(body.length)].join("\n");
}
