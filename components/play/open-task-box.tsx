"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/**
 * Opens a task from a pasted link (`http://host/play/sql/spider-dev:12`) or a short address
 * (`sql/spider-dev:12`, `bash/demo-bash:find-logs`).
 */
export function OpenTaskBox() {
  const router = useRouter();
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="flex items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        const target = toPlayPath(value.trim());
        if (!target) return setError("paste a /play/... link or <env>/<dataset>:<id>");
        setError(null);
        router.push(target);
      }}
    >
      <input
        value={value}
        onChange={(e) => setValue(e.target.value)}
        aria-label="open a task by link or id"
        placeholder="sql/spider-dev:12 or a link"
        data-testid="open-task"
        className="w-64 rounded border border-zinc-700 bg-zinc-900 px-1.5 py-0.5 font-mono text-xs"
      />
      <button type="submit" className="rounded border border-zinc-700 px-2 py-0.5 text-xs hover:bg-zinc-800">
        Open
      </button>
      {error && <span className="text-xs text-red-400">{error}</span>}
    </form>
  );
}

function toPlayPath(input: string): string | null {
  if (!input) return null;
  let path = input;
  try {
    if (/^https?:\/\//.test(input)) {
      const u = new URL(input);
      path = u.pathname + u.search;
    }
  } catch {
    return null;
  }
  if (path.startsWith("/play/")) return path;
  const m = /^(bash|sql|python|ctf)\/(.+)$/.exec(path.replace(/^\//, ""));
  if (!m) return null;
  return `/play/${m[1]}/${encodeURIComponent(decodeURIComponent(m[2]))}`;
}
