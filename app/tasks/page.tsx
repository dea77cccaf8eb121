import Link from "next/link";
import type { Metadata } from "next";
import { ENV_NAMES } from "@/lib/datasets/types";
import { datasetsFor } from "@/lib/tasks/tasks";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Datasets · InterCode Studio" };

/** /tasks: every installed dataset, by environment, each linking to its task list. */
export default function DatasetsPage() {
  const all = datasetsFor();
  return (
    <div className="mx-auto max-w-5xl space-y-5 p-4 text-sm">
      <h1 className="text-lg font-semibold">Datasets</h1>
      {ENV_NAMES.map((env) => {
        const sets = all.filter((d) => d.env === env);
        return (
          <section key={env} aria-labelledby={`env-${env}`}>
            <h2 id={`env-${env}`} className="mb-1 font-semibold text-zinc-200">
              <Link href={`/tasks/${env}`} className="hover:underline">
                {env}
              </Link>
            </h2>
            {sets.length === 0 ? (
              <p className="text-xs text-zinc-400">
                No {env} dataset is installed (run <code>npm run icstudio -- datasets fetch intercode</code>).
              </p>
            ) : (
              <table className="w-full text-left" data-testid={`datasets-${env}`}>
                <thead className="text-xs text-zinc-400">
                  <tr>
                    <th className="py-1 pr-3 font-medium">Dataset</th>
                    <th className="pr-3 font-medium">Tasks</th>
                    <th className="pr-3 font-medium">Source</th>
                    <th className="font-medium">About</th>
                  </tr>
                </thead>
                <tbody>
                  {sets.map((d) => (
                    <tr key={d.name} className="border-t border-zinc-800">
                      <td className="whitespace-nowrap py-1 pr-3 font-mono text-xs">
                        <Link className="text-emerald-400 hover:underline" href={`/tasks/${env}?dataset=${encodeURIComponent(d.name)}`}>
                          {d.name}
                        </Link>
                      </td>
                      <td className="pr-3 tabular-nums">{d.tasks}</td>
                      <td className="pr-3 text-xs text-zinc-300">{d.source}</td>
                      <td className="text-xs text-zinc-300">{d.description}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        );
      })}
    </div>
  );
}
