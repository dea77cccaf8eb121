import { StatusChip } from "@/components/episodes/status-chip";
import type { ViewerRow } from "@/lib/db/episode-rows";
import { playerLabel } from "@/lib/viewer/player";

const input = "rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100";

/**
 * Picks episodes to compare from the store: a search (query, actions and output; task id) and a
 * list to tick. Plain GET forms, so the picked set is the page's URL (`/compare?ids=a&ids=b`).
 */
export function ComparePicker({ rows, total, q, task, picked }: { rows: ViewerRow[]; total: number; q: string; task: string; picked: string[] }) {
  return (
    <section className="space-y-2 text-xs" data-testid="compare-picker">
      <form method="get" action="/compare" className="flex flex-wrap items-end gap-2" role="search">
        <label className="flex flex-col text-zinc-400">
          search (query, actions, output)
          <input name="q" defaultValue={q} className={`w-72 ${input}`} data-testid="compare-search" />
        </label>
        <label className="flex flex-col text-zinc-400">
          task id
          <input name="task" defaultValue={task} className={`w-28 ${input}`} data-testid="compare-task" />
        </label>
        {picked.map((id) => (
          <input key={id} type="hidden" name="ids" value={id} />
        ))}
        <button type="submit" className="rounded border border-zinc-700 px-2 py-0.5 text-zinc-200 hover:bg-zinc-800">
          search
        </button>
        <span className="text-zinc-400">
          {total.toLocaleString("en")} episodes{total > rows.length ? `, the latest ${rows.length} shown` : ""}
        </span>
      </form>
      <form method="get" action="/compare" className="space-y-2">
        <table className="w-full border-collapse" data-testid="compare-candidates">
          <thead>
            <tr className="border-b border-zinc-800 text-left text-zinc-400">
              {["pick", "task", "env · dataset", "player", "status", "reward", "turns"].map((h) => (
                <th key={h} scope="col" className="px-1 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} className="border-b border-zinc-900" data-testid="compare-candidate" data-id={r.id}>
                <td className="px-1">
                  <input
                    type="checkbox"
                    name="ids"
                    value={r.id}
                    defaultChecked={picked.includes(r.id)}
                    aria-label={`compare ${r.taskId} by ${playerLabel(r)}`}
                  />
                </td>
                <td className="max-w-[32rem] truncate px-2" title={r.query}>
                  <span className="text-zinc-400">{r.taskId}</span> {r.query}
                </td>
                <td className="px-2">
                  {r.environment} · {r.dataset}
                </td>
                <td className="px-2">{playerLabel(r)}</td>
                <td className="px-2">
                  <StatusChip status={r.status} />
                </td>
                <td className="px-2 font-mono">{r.reward === null ? "–" : r.reward.toFixed(2)}</td>
                <td className="px-2">{r.turnCount}</td>
              </tr>
            ))}
            {!rows.length && (
              <tr>
                <td colSpan={7} className="p-2 text-zinc-400">
                  no episodes match
                </td>
              </tr>
            )}
          </tbody>
        </table>
        <button type="submit" className="rounded bg-emerald-700 px-2 py-0.5 font-medium text-white hover:bg-emerald-600" data-testid="compare-picked">
          compare the ticked episodes
        </button>
      </form>
    </section>
  );
}
