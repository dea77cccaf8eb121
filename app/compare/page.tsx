import type { Metadata } from "next";
import { ComparePicker } from "@/components/replay/compare-picker";
import { CompareView } from "@/components/replay/compare-view";
import { listTurnReplayCurveByEpisode, listTurnReplaysByEpisode } from "@/lib/db/turn-replays";
import { listViewerEpisodes } from "@/lib/db/episodes";
import { listReplayHeadersByIds } from "@/lib/db/viewer-queries";
import { COMPARE_CUT, WINDOW_TURNS } from "@/lib/db/replay-window";
import { listSealedTaskKeys, redactSealedRows, sealKey } from "@/lib/studies/baseline-seal";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare · InterCode Studio" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const PICK_ROWS = 30;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? "";

/**
 * /compare?ids=a,b,... (or ids=a&ids=b): episodes side by side, aligned by turn. Without two
 * episodes it opens on the picker (search the store, tick episodes); with them the picker is
 * folded below. Each episode comes as its header and first window of turns (observations cut to
 * COMPARE_CUT characters); the view fetches further turns and whole observations on demand.
 */
export default async function ComparePage({ searchParams }: Props) {
  const sp = await searchParams;
  const raw = sp.ids;
  const ids = [
    ...new Set(
      (Array.isArray(raw) ? raw.join(",") : (raw ?? ""))
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ].slice(0, 8);
  const q = first(sp.q);
  const task = first(sp.task);
  const sealed = await listSealedTaskKeys();
  const found = await listReplayHeadersByIds({ ids, cut: COMPARE_CUT });
  // Episodes of a task sealed by an unsubmitted baseline episode are left out (lib/studies/baseline-seal.ts).
  const episodes = found.filter((d) => !sealed.has(sealKey(d.episode)));
  const tasks = new Set(episodes.map((d) => `${d.episode.environment}/${d.episode.dataset}/${d.episode.taskId}`));
  const head = episodes[0]?.episode;
  // The would-be rewards of the first window and the replayed rewards' curve aggregate (when the
  // replay page computed them), not every turn's.
  const wouldBe: Record<string, Record<number, number | null>> = {};
  const wouldBeCurves: Record<string, { turn: number; reward: number | null }[]> = {};
  for (const d of episodes) {
    const rows = await listTurnReplaysByEpisode({ episodeId: d.episode.id, from: 0, limit: WINDOW_TURNS });
    wouldBe[d.episode.id] = Object.fromEntries(rows.map((r) => [r.index, r.reward]));
    if (rows.length) wouldBeCurves[d.episode.id] = await listTurnReplayCurveByEpisode({ episodeId: d.episode.id, bucket: d.curve.bucket });
  }
  const candidates = await listViewerEpisodes({
    filters: { ...(q ? { search: q } : {}), ...(task ? { taskId: [task] } : {}) },
    sort: "startedAt",
    dir: "desc",
    pageSize: PICK_ROWS,
  });
  const picker = (
    <ComparePicker rows={await redactSealedRows(candidates.rows)} total={candidates.total} q={q} task={task} picked={episodes.map((d) => d.episode.id)} />
  );
  return (
    <div className="space-y-3 p-4">
      <h1 className="text-lg font-semibold">Compare</h1>
      {found.length > episodes.length && (
        <p className="text-xs text-amber-400" data-testid="sealed">
          {found.length - episodes.length} of the episodes are of a task sealed by an unsubmitted baseline episode.
        </p>
      )}
      {found.length < ids.length && <p className="text-xs text-amber-400">{ids.length - found.length} of the ids are not in the store.</p>}
      {tasks.size > 1 && <p className="text-xs text-amber-400">These episodes are of {tasks.size} different tasks; turns are still aligned by position.</p>}
      {head && <p className="text-sm text-zinc-200">{head.query}</p>}
      {episodes.length >= 2 ? (
        <>
          <CompareView episodes={episodes} wouldBe={wouldBe} wouldBeCurves={wouldBeCurves} />
          <details className="text-xs">
            <summary className="cursor-pointer text-zinc-300">pick other episodes</summary>
            <div className="mt-2">{picker}</div>
          </details>
        </>
      ) : (
        <>
          <p className="text-sm text-zinc-300">Pick two or more episodes to see them side by side, aligned by turn.</p>
          {episodes.length === 1 && <CompareView episodes={episodes} wouldBe={wouldBe} wouldBeCurves={wouldBeCurves} />}
          {picker}
        </>
      )}
    </div>
  );
}
