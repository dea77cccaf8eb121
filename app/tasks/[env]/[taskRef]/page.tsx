import Link from "next/link";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { listViewerEpisodesByTask } from "@/lib/db/episodes";
import { resolveTask } from "@/lib/tasks/tasks";
import { parseTaskRef } from "@/lib/tasks/task-ref";
import { playUrl } from "@/lib/tasks/task-ref";
import { formatDate } from "@/lib/format-date";
import { redactSealedRows } from "@/lib/studies/baseline-seal";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string; taskRef: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { env, taskRef } = await params;
  return { title: `${decodeURIComponent(taskRef)} (${env}) episodes · InterCode Studio` };
}

/** /tasks/<env>/<dataset>:<id>: every episode of one task, grouped by player. */
export default async function TaskEpisodesPage({ params }: Props) {
  const { env, taskRef } = await params;
  const { dataset, id } = parseTaskRef(decodeURIComponent(taskRef));
  // A sealed task's episodes are listed without their rewards (lib/studies/baseline-seal.ts).
  const rows = await redactSealedRows(await listViewerEpisodesByTask({ environment: env, dataset: dataset || undefined, taskId: id }));
  // No episodes and no such task in the task sets (a mistyped or hostile address): 404, not an empty page.
  if (!rows.length) {
    try {
      resolveTask(env as Parameters<typeof resolveTask>[0], decodeURIComponent(taskRef));
    } catch {
      notFound();
    }
  }
  const groups = new Map<string, typeof rows>();
  for (const r of rows) {
    const player = r.annotator ? `human · ${r.annotator}` : r.model ? `${r.model}${r.policy ? ` · ${r.policy}` : ""}` : r.playerKind;
    groups.set(player, [...(groups.get(player) ?? []), r]);
  }
  const best = [...groups.values()].map((g) => [...g].sort((a, b) => (b.reward ?? -1) - (a.reward ?? -1))[0].id);
  return (
    <div className="space-y-3 p-4 text-xs">
      <h1 className="text-lg font-semibold">
        {env} · {dataset || "any dataset"} · task {id}
      </h1>
      {rows[0] && <p className="text-sm text-zinc-200">{rows[0].query}</p>}
      <div className="flex gap-4">
        {dataset && (
          <Link className="text-sky-400 underline" href={playUrl(env, dataset, id)}>
            play this task
          </Link>
        )}
        {best.length > 1 && (
          <Link className="text-sky-400 underline" href={`/compare?ids=${best.join(",")}`} data-testid="compare-best">
            compare the best episode of each player
          </Link>
        )}
        <Link
          className="text-sky-400 underline"
          href={`/episodes?env=${env}&task=${encodeURIComponent(id)}${dataset ? `&dataset=${encodeURIComponent(dataset)}` : ""}`}
        >
          in the list
        </Link>
      </div>
      {!rows.length && <p className="text-zinc-400">No episodes of this task yet.</p>}
      {[...groups.entries()].map(([player, eps]) => (
        <section key={player} data-testid="task-player">
          <h2 className="mb-1 font-semibold text-zinc-300">
            {player} <span className="font-normal text-zinc-400">({eps.length})</span>
          </h2>
          <ul className="space-y-0.5">
            {eps.map((e) => (
              <li key={e.id}>
                <Link href={`/episodes/${e.id}`} className="text-zinc-200 hover:text-emerald-300">
                  {formatDate(e.startedAt)} · {e.status} · reward{" "}
                  {e.sealed ? <span data-testid="reward-sealed">sealed</span> : e.reward === null ? "–" : e.reward.toFixed(2)} · {e.turnCount} turns
                  {e.success ? " · solved" : ""}
                  {e.parentEpisodeId ? " · branch" : ""}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
