import Link from "next/link";
import { listDatasets } from "@/lib/datasets/registry";
import { listStudyViews } from "@/lib/studies/studies";
import { buildStudyResults } from "@/lib/studies/study-results";
import { formatDate } from "@/lib/format-date";
import { NewStudyForm } from "@/components/play/new-study-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Studies · InterCode Studio" };

/** Human baseline studies: the list with each one's progress, and a form to create one. */
export default async function StudiesPage() {
  const studies = await listStudyViews();
  const results = new Map(
    await Promise.all(
      studies.map(async (s) => [s.id, (await buildStudyResults(s.id))?.annotators.filter((a) => a.done > 0 || a.currentActiveMs > 0) ?? []] as const),
    ),
  );
  const datasets = listDatasets().map((d) => ({ name: d.name, env: d.env, tasks: d.tasks }));
  return (
    <div className="mx-auto max-w-5xl space-y-6 p-4 text-sm">
      <section>
        <h1 className="mb-2 text-lg font-semibold">Studies</h1>
        {studies.length === 0 ? (
          <p className="text-zinc-400">No study yet.</p>
        ) : (
          <table className="w-full text-left">
            <thead className="text-xs text-zinc-400">
              <tr>
                <th className="py-1 pr-3 font-medium">Name</th>
                <th className="pr-3 font-medium">Tasks</th>
                <th className="pr-3 font-medium">Conditions</th>
                <th className="pr-3 font-medium">Progress</th>
                <th className="pr-3 font-medium">Created</th>
                <th className="font-medium">
                  <span className="sr-only">Links</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {studies.map((s) => {
                const total = s.config.tasks.length;
                const annotators = results.get(s.id) ?? [];
                const best = Math.max(0, ...annotators.map((a) => a.done));
                return (
                  <tr key={s.id} className="border-t border-zinc-800 align-top">
                    <td className="py-1 pr-3">{s.name}</td>
                    <td className="pr-3">
                      {s.config.env} · {s.config.dataset} · {total}
                    </td>
                    <td className="pr-3 text-xs text-zinc-300">
                      feedback {s.config.feedback}, {s.config.turnLimit} turns
                    </td>
                    <td className="pr-3 text-xs" data-testid="study-progress-cell">
                      <div className="mb-0.5 h-1.5 w-32 rounded bg-zinc-800" role="img" aria-label={`${best} of ${total} tasks done by the furthest annotator`}>
                        <div className="h-1.5 rounded bg-emerald-500" style={{ width: `${total ? (100 * best) / total : 0}%` }} />
                      </div>
                      {annotators.length === 0 ? (
                        <span className="text-zinc-400">not started</span>
                      ) : (
                        annotators.map((a) => (
                          <span key={a.annotator} className="mr-2 whitespace-nowrap text-zinc-200">
                            {a.annotator} {a.done}/{total}
                          </span>
                        ))
                      )}
                    </td>
                    <td className="whitespace-nowrap pr-3 text-xs text-zinc-300">{formatDate(s.createdAt)}</td>
                    <td className="whitespace-nowrap text-xs">
                      <Link className="text-emerald-400 hover:underline" href={`/play/study/${s.id}`}>
                        Work it →
                      </Link>{" "}
                      <Link className="ml-2 text-emerald-400 hover:underline" href={`/play/study/${s.id}/results`} data-testid="study-results-link">
                        Results
                      </Link>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      <NewStudyForm datasets={datasets} />
    </div>
  );
}
