"use client";

import { useMemo } from "react";
import { parseAnsi, spanStyle } from "@/lib/viewer/ansi";

/** Terminal output with its ANSI colours kept, in a terminal-styled block. */
export function AnsiOutput({ text, className = "", testId }: { text: string; className?: string; testId?: string }) {
  const spans = useMemo(() => parseAnsi(text.length > 200_000 ? text.slice(0, 200_000) + "\n… (cut)" : text), [text]);
  return (
    <pre data-testid={testId} className={`overflow-auto whitespace-pre-wrap break-words rounded bg-black p-2 font-mono text-xs text-zinc-200 ${className}`}>
      {spans.length === 0 ? <span className="text-zinc-400">(no output)</span> : spans.map((s, i) => (
        <span key={i} style={spanStyle(s)}>{s.text}</span>
      ))}
    </pre>
  );
}
