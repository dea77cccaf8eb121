"use client";

import { useMemo } from "react";
import { parseAnsi, spanStyle } from "@/lib/viewer/ansi";
import { useCutText } from "./cut-text";

/** Terminal output with its ANSI colours kept, in a terminal-styled block (cut at `limit` characters until "show all"). */
export function AnsiOutput({ text, className = "", testId, limit }: { text: string; className?: string; testId?: string; limit?: number }) {
  const { shown, more } = useCutText(text, limit);
  const spans = useMemo(() => parseAnsi(shown), [shown]);
  return (
    <>
      <pre data-testid={testId} className={`overflow-auto whitespace-pre-wrap break-words rounded bg-black p-2 font-mono text-xs text-zinc-200 ${className}`}>
        {spans.length === 0 ? (
          <span className="text-zinc-400">(no output)</span>
        ) : (
          spans.map((s, i) => (
            <span key={i} style={spanStyle(s)}>
              {s.text}
            </span>
          ))
        )}
      </pre>
      {more}
    </>
  );
}
