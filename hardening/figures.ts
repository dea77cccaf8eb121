import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Where the hardening tests append their figures (JSON lines); the global teardown prints them. */
export const FIGURES_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "var", "hardening-figures.jsonl");

/**
 * One measured figure of the hardening run, e.g. section "containment", row "local/bash",
 * tried 34, passed 34 ("contained"). `target` says what passing means for the row.
 */
export interface Figure {
  section: string;
  row: string;
  tried: number;
  passed: number;
  /** What `passed` counts (contained, handled, rejected, ...). */
  unit: string;
  /** Lines naming each failure, shown under the table. */
  failures?: string[];
  /** Extra measured values shown as-is (e.g. "turns lost": 0). */
  extra?: Record<string, string | number>;
}

/** Appends one figure; safe across test files run one after another. */
export function recordFigure(f: Figure): void {
  fs.mkdirSync(path.dirname(FIGURES_FILE), { recursive: true });
  fs.appendFileSync(FIGURES_FILE, `${JSON.stringify(f)}\n`);
}

/** Reads every figure recorded so far (unparseable lines are reported as failures of the reporter). */
export function readFigures(file = FIGURES_FILE): Figure[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as Figure;
      } catch {
        return { section: "reporter", row: "unparseable line", tried: 1, passed: 0, unit: "read", failures: [l.slice(0, 200)] };
      }
    });
}

/** The summary table printed at the end of `npm run test:hardening`. */
export function formatFigures(figures: Figure[]): string {
  if (figures.length === 0) return "Hardening figures: none recorded (did every test file skip?)";
  const rows = figures.map((f) => [
    f.section,
    f.row,
    `${f.passed}/${f.tried} ${f.unit}`,
    f.tried === 0 ? "SKIP" : f.passed === f.tried ? "OK" : "FAIL",
    Object.entries(f.extra ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(" "),
  ]);
  const head = ["section", "row", "figure", "status", "extra"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  const out = ["", "Hardening figures", line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
  const tried = figures.reduce((s, f) => s + f.tried, 0);
  const passed = figures.reduce((s, f) => s + f.passed, 0);
  out.push(`total: ${passed}/${tried} at target`);
  const failures = figures.flatMap((f) => (f.failures ?? []).map((x) => `  ${f.section} ${f.row}: ${x}`));
  if (failures.length) out.push("failures:", ...failures);
  return out.join("\n");
}
