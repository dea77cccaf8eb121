import Link from "next/link";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getStudyResults } from "@/lib/studies/studies";
import { formatDate, formatDuration } from "@/lib/format-date";
import { InvitesPanel } from "@/components/play/invites-panel";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Study ${decodeURIComponent(id).slice(0, 8)} results · InterCode Studio` };
}

/** A study's results per annotator: tasks done, success, mean reward, time on task. */
export default async function StudyResultsPage({ params }: Props) {
  const { id } = await params;
  const r = await getStudyResults(decodeURIComponent(id));
  if (!r) notFound();
  const { study, annotators } = r;
  const total = study.config.tasks.length;
  return (
    <div className="mx-auto max-w-5xl space-y-4 p-4 text-sm">
      <p className="text-xs text-zinc-400"><Link href="/play/studies" className="hover:underline">Studies</Link> / {study.name}</p>
      <h1 className="text-lg font-semibold">{study.name}: results</h1>
      <p className="text-zinc-300">
        {study.config.env} · {study.config.dataset} · {total} tasks · feedback {study.config.feedback} · {study.config.turnLimit} turns · created {formatDate(study.createdAt)}
      </p>
      {annotators.length === 0 ? (
        <p className="text-zinc-400" data-testid="study-results-empty">No annotator has finished a task of this study yet.</p>
      ) : (
        <table className="w-full text-left" data-testid="study-results">
          <thead className="text-xs text-zinc-400">
            <tr>
              <th className="py-1 pr-3 font-medium">Annotator</th>
              <th className="pr-3 font-medium">Tasks done</th>
              <th className="pr-3 font-medium">Solved</th>
              <th className="pr-3 font-medium">Success</th>
              <th className="pr-3 font-medium">Mean reward</th>
              <th className="pr-3 font-medium">Time on task</th>
              <th className="font-medium">Per task</th>
            </tr>
          </thead>
          <tbody className="tabular-nums">
            {annotators.map((a) => (
              <tr key={a.annotator} className="border-t border-zinc-800" data-testid="study-result" data-annotator={a.annotator}>
                <td className="py-1 pr-3">{a.annotator}</td>
                <td className="pr-3" data-testid="study-done">{a.done} / {total}{a.skipped ? <span className="text-zinc-400"> ({a.skipped} skipped)</span> : null}</td>
                <td className="pr-3">{a.solved}</td>
                <td className="pr-3" data-testid="study-success">{a.submitted ? `${Math.round((100 * a.solved) / a.submitted)}%` : "–"}</td>
                <td className="pr-3" data-testid="study-mean-reward">{a.meanReward === null ? "–" : a.meanReward.toFixed(2)}</td>
                <td className="pr-3" data-testid="study-time">{formatDuration(a.totalMs)}</td>
                <td>{formatDuration(a.meanMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="text-xs text-zinc-400">
        A task is done when submitted or skipped; success is the share of submitted tasks solved (reward 1); the mean reward is over submitted tasks;
        time on task runs from each episode&apos;s first action to its end.
      </p>
      <InvitesPanel studyId={study.id} closed={study.closedAt !== null} />
      <p className="flex gap-4">
        <Link className="text-emerald-400 underline" href={`/play/study/${encodeURIComponent(study.id)}`}>Work this study</Link>
      </p>
    </div>
  );
}
