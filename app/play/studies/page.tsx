import Link from "next/link";
import { listDatasets } from "@/lib/datasets/registry";
import { listStudyViews } from "@/lib/server/studies";
import { NewStudyForm } from "@/components/play/new-study-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Studies · InterCode Studio" };

/** Human baseline studies: the list, and a form to create one. */
export default async function StudiesPage() {
  const studies = await listStudyViews();
  const datasets = listDatasets().map((d) => ({ name: d.name, env: d.env, tasks: d.tasks }));
  return (
    <div className="mx-auto max-w-4xl space-y-6 p-4 text-sm">
      <section>
        <h1 className="mb-2 text-lg font-semibold">Studies</h1>
        {studies.length === 0 ? (
          <p className="text-zinc-500">No study yet.</p>
        ) : (
          <table className="w-full text-left">
            <thead className="text-xs text-zinc-500"><tr><th>Name</th><th>Tasks</th><th>Conditions</th><th /></tr></thead>
            <tbody>
              {studies.map((s) => (
                <tr key={s.id} className="border-t border-zinc-900">
                  <td className="py-1">{s.name}</td>
                  <td>{s.config.env} · {s.config.dataset} · {s.config.tasks.length}</td>
                  <td className="text-xs text-zinc-400">feedback {s.config.feedback}, {s.config.turnLimit} turns</td>
                  <td><Link className="text-emerald-400 hover:underline" href={`/play/study/${s.id}`}>Work it →</Link></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <NewStudyForm datasets={datasets} />
    </div>
  );
}
