"use client";

import { useMemo } from "react";
import { diffLines, diffStats } from "@/lib/viewer/diff";
import { stripAnsi } from "@/lib/viewer/ansi";

/** The player's output against gold's, line by line (− the player's only, + gold's only). */
export function LineDiff({ player, gold }: { player: string; gold: string }) {
  const d = useMemo(() => diffLines(stripAnsi(player), stripAnsi(gold)), [player, gold]);
  const s = diffStats(d);
  return (
    <div data-testid="output-diff">
      <div className="mb-1 text-xs text-zinc-400">
        {s.same} same · <span className="text-red-400">−{s.del} player only</span> · <span className="text-emerald-400">+{s.add} gold only</span>
      </div>
      <pre className="max-h-64 overflow-auto rounded bg-black p-2 font-mono text-xs">
        {d.slice(0, 2000).map((l, i) => (
          <div key={i} className={l.op === "del" ? "bg-red-950 text-red-300" : l.op === "add" ? "bg-emerald-950 text-emerald-300" : "text-zinc-400"}>
            {l.op === "del" ? "− " : l.op === "add" ? "+ " : "  "}
            {l.text || " "}
          </div>
        ))}
      </pre>
    </div>
  );
}
