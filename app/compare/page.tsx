import type { Metadata } from "next";
import { CompareView } from "@/components/replay/compare-view";
import { listReplayDataByIds } from "@/lib/db/viewer-queries";
import { listSealedTaskKeys, sealKey } from "@/lib/server/baseline-seal";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare · InterCode Studio" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** /compare?ids=a,b,...: episodes side by side, aligned by turn. */
export default async function ComparePage({ searchParams }: Props) {
  const raw = (await searchParams).ids;
  const ids = (Array.isArray(raw) ? raw.join(",") : (raw ?? "")).split(",").map((s) => s.trim()).filter(Boolean).slice(0, 8);
  const sealed = listSealedTaskKeys();
  const found = listReplayDataByIds({ ids });
  // Episodes of a task sealed by an unsubmitted baseline episode are left out (lib/server/baseline-seal.ts).
  const episodes = found.filter((d) => !sealed.has(sealKey(d.episode)));
  const tasks = new Set(episodes.map((d) => `${d.episode.environment}/${d.episode.dataset}/${d.episode.taskId}`));
  const first = episodes[0]?.episode;
  return (
    <div className="space-y-3 p-4">
      <h1 className="text-lg font-semibold">Compare</h1>
      {found.length > episodes.length && <p className="text-xs text-amber-400" data-testid="sealed">{found.length - episodes.length} of the episodes are of a task sealed by an unsubmitted baseline episode.</p>}
      {found.length < ids.length && <p className="text-xs text-amber-400">{ids.length - found.length} of the ids are not in the store.</p>}
      {tasks.size > 1 && <p className="text-xs text-amber-400">These episodes are of {tasks.size} different tasks; turns are still aligned by position.</p>}
      {first && <p className="text-sm text-zinc-200">{first.query}</p>}
      {episodes.length ? <CompareView episodes={episodes} /> : <p className="text-sm text-zinc-500">Give episode ids: /compare?ids=a,b</p>}
    </div>
  );
}
