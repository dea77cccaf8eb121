"use client";

import { useMemo } from "react";
import { sqlTableOf } from "@/lib/viewer/sql-table";
import { AnsiOutput } from "./ansi-output";

export type SqlResultView = "table" | "raw";

const SHOWN_ROWS = 500;

/**
 * A SQL turn's output: an HTML table with column names (from the engine when a replay gave them,
 * else the query's select list, else c1..cn), or the stored text as InterCode recorded it; the
 * switch between the two is the caller's (kept across turns). Text that is not a result set (an
 * error, "Query OK") is always shown raw.
 */
export function SqlResult({
  observation,
  query,
  columns,
  view,
  onView,
  testId,
}: {
  observation: string;
  query: string;
  columns: string[] | null;
  view: SqlResultView;
  onView: (v: SqlResultView) => void;
  testId?: string;
}) {
  const table = useMemo(() => sqlTableOf(observation, query, columns), [observation, query, columns]);
  if (!table) return <AnsiOutput text={observation} className="mt-1 max-h-72" testId={testId} />;
  return (
    <div className="mt-1 space-y-1" data-testid="sql-result">
      <div className="flex items-center gap-2 text-xs text-zinc-400" role="group" aria-label="show the result as">
        {(["table", "raw"] as const).map((v) => (
          <button
            key={v}
            type="button"
            aria-pressed={view === v}
            className={`rounded border px-1.5 ${view === v ? "border-emerald-600 text-emerald-300" : "border-zinc-700 text-zinc-400 hover:text-zinc-100"}`}
            onClick={(e) => {
              e.stopPropagation();
              onView(v);
            }}
            data-testid={`sql-view-${v}`}
          >
            {v}
          </button>
        ))}
        <span>
          {table.rows.length} row{table.rows.length === 1 ? "" : "s"}
          {table.columnSource === "query" ? " · column names from the query" : table.columnSource === "numbered" ? " · column names unknown" : ""}
        </span>
      </div>
      {view === "raw" ? (
        <AnsiOutput text={observation} className="max-h-72" testId={testId} />
      ) : (
        <div className="max-h-72 overflow-auto rounded bg-black" data-testid={testId}>
          <table className="w-full border-collapse font-mono text-xs text-zinc-200" data-testid="sql-table">
            <thead className="sticky top-0 bg-zinc-900">
              <tr>
                {table.columns.map((c, i) => (
                  <th key={i} scope="col" className="border-b border-zinc-700 px-2 py-0.5 text-left font-semibold text-zinc-300">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.slice(0, SHOWN_ROWS).map((r, i) => (
                <tr key={i} className="odd:bg-zinc-950">
                  {r.map((c, j) => (
                    <td key={j} className={`whitespace-pre px-2 py-0.5 align-top ${c === "NULL" ? "italic text-zinc-400" : ""}`}>
                      {c}
                    </td>
                  ))}
                </tr>
              ))}
              {!table.rows.length && (
                <tr>
                  <td colSpan={Math.max(1, table.columns.length)} className="px-2 py-0.5 text-zinc-400">
                    (no rows)
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          {table.rows.length > SHOWN_ROWS && (
            <p className="px-2 py-0.5 text-xs text-zinc-400">
              first {SHOWN_ROWS} of {table.rows.length} rows; switch to raw for all
            </p>
          )}
        </div>
      )}
    </div>
  );
}
