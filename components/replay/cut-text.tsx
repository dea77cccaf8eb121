"use client";

import { useState } from "react";

/** Characters of a long text (gold, a write-up, an observation) shown before "show all". */
export const CUT_CHARS = 20_000;

/**
 * A long text cut to its first `limit` characters until the reader asks for all of it, so a page's
 * cost does not grow with what it shows (a 500 KB write-up used to freeze the replay).
 */
export function useCutText(text: string, limit = CUT_CHARS): { shown: string; more: React.ReactNode } {
  const [all, setAll] = useState(false);
  if (all || text.length <= limit) return { shown: text, more: null };
  return {
    shown: text.slice(0, limit),
    more: (
      <button
        type="button"
        className="mt-1 block rounded bg-zinc-800 px-2 py-0.5 font-sans text-xs text-zinc-200 hover:bg-zinc-700"
        onClick={() => setAll(true)}
        data-testid="show-all"
      >
        show all ({text.length.toLocaleString("en-US")} characters; {(text.length - limit).toLocaleString("en-US")} more)
      </button>
    ),
  };
}
