"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { ViewerRow } from "@/lib/db/episode-rows";
import { formatDate } from "@/lib/format-date";
import { FlagChips } from "./flag-chips";
import { playerLabel } from "@/lib/viewer/player";
import { StatusChip } from "./status-chip";

/** A sortable column: its URL sort name and header. */
const COLUMNS: { sort: string; label: string }[] = [
  { sort: "task", label: "task" },
  { sort: "env", label: "env" },
  { sort: "dataset", label: "dataset" },
  { sort: "player", label: "player" },
  { sort: "status", label: "status" },
  { sort: "reward", label: "reward" },
  { sort: "solved", label: "solved" },
  { sort: "turns", label: "turns" },
  { sort: "invalid", label: "invalid" },
  { sort: "duration", label: "duration" },
  { sort: "", label: "tags" },
  { sort: "date", label: "date" },
];

const fmtDuration = (ms: number | null) =>
  ms === null ? "–" : ms < 1000 ? `${ms} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;

/**
 * The episode table. Headers link to the same view sorted on that column (the whole view lives
 * in the URL); rows open the replay; ticked rows open side by side in compare.
 */
export function EpisodeTable({ rows, query, sort, dir }: { rows: ViewerRow[]; query: Record<string, string>; sort: string; dir: "asc" | "desc" }) {
  const router = useRouter();
  const [picked, setPicked] = useState<string[]>([]);
  const sortHref = (col: string) => {
    const q = new URLSearchParams(query);
    q.set("sort", col);
    q.set("dir", sort === col && dir === "desc" ? "asc" : "desc");
    q.delete("page");
    return `/episodes?${q}`;
  };
  return (
    <div>
      <div className="mb-1 flex items-center gap-2 text-xs">
        <Button
          disabled={picked.length < 2}
          onClick={() => router.push(`/compare?ids=${picked.map(encodeURIComponent).join(",")}`)}
          data-testid="compare-selected"
        >
          compare {picked.length || ""} selected
        </Button>
      </div>
      <table className="w-full border-collapse text-xs" data-testid="episode-table">
        <thead>
          <tr className="border-b border-zinc-800 text-left text-zinc-400">
            <th className="w-6" />
            {COLUMNS.map((c) => (
              <th key={c.label} className="px-2 py-1 font-medium">
                {c.sort ? (
                  <Link href={sortHref(c.sort)} className="hover:text-zinc-100" data-testid={`sort-${c.sort}`}>
                    {c.label}
                    {sort === c.sort ? (dir === "asc" ? " ▲" : " ▼") : ""}
                  </Link>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className="border-b border-zinc-900 hover:bg-zinc-900" data-testid="episode-row" data-id={r.id}>
              <td className="px-1">
                <input
                  type="checkbox"
                  aria-label="select for compare"
                  checked={picked.includes(r.id)}
                  onChange={(e) => setPicked((p) => (e.target.checked ? [...p, r.id] : p.filter((x) => x !== r.id)))}
                />
              </td>
              <td className="max-w-[28rem] px-2 py-1">
                <Link href={`/episodes/${r.id}`} className="block truncate text-zinc-100 hover:text-emerald-300" title={r.query}>
                  <span className="text-zinc-400">{r.taskId}</span> {r.query}
                </Link>
              </td>
              <td className="px-2">{r.environment}</td>
              <td className="px-2">{r.dataset}</td>
              <td className="px-2">{playerLabel(r)}</td>
              <td className="px-2">
                <StatusChip status={r.status} />
              </td>
              <td className="px-2 font-mono">{r.reward === null ? "–" : r.reward.toFixed(2)}</td>
              <td className={`px-2 ${r.success ? "text-emerald-400" : "text-zinc-400"}`}>{r.success ? "yes" : "no"}</td>
              <td className="px-2">
                {r.turnCount}/{r.turnLimit}
              </td>
              <td className={`px-2 ${r.invalidCount ? "text-red-400" : ""}`}>{r.invalidCount}</td>
              <td className="px-2">{fmtDuration(r.durationMs)}</td>
              <td className="px-2">
                {r.tags.map((t) => (
                  <Link key={t} href={`/episodes?tag=${encodeURIComponent(t)}`} className="mr-1 rounded bg-zinc-800 px-1 text-emerald-300">
                    {t}
                  </Link>
                ))}
                <FlagChips flags={r.flags} link />
              </td>
              <td className="whitespace-nowrap px-2 text-zinc-400">{formatDate(r.startedAt)}</td>
            </tr>
          ))}
          {!rows.length && (
            <tr>
              <td colSpan={13} className="p-4 text-center text-zinc-400">
                no episodes match
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
