import Link from "next/link";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";
import { datasetsFor, searchTasks } from "@/lib/tasks/tasks";
import { formatTaskRef, playUrl } from "@/lib/tasks/task-ref";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const PAGE_SIZE = 100;
const querySchema = z.object({
  dataset: z.string().min(1).max(200).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(100_000).catch(1).default(1),
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { env } = await params;
  return { title: `${env} tasks · InterCode Studio` };
}

/** /tasks/<env>?dataset=<name>: a dataset's tasks, each with a link to play it, watch a model, and its episodes. */
export default async function DatasetTasksPage({ params, searchParams }: Props) {
  const env = envNameSchema.safeParse((await params).env);
  if (!env.success) notFound();
  const q = querySchema.parse(await searchParams);
  const sets = datasetsFor(env.data);
  if (q.dataset && !sets.some((d) => d.name === q.dataset)) notFound();
  const dataset = q.dataset ?? sets[0]?.name;
  const result = dataset ? searchTasks({ env: env.data, dataset, offset: (q.page - 1) * PAGE_SIZE, limit: PAGE_SIZE }) : { total: 0, tasks: [] };
  const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE));
  const here = (over: { dataset?: string; page?: number }) =>
    `/tasks/${env.data}?dataset=${encodeURIComponent(over.dataset ?? dataset ?? "")}${over.page && over.page > 1 ? `&page=${over.page}` : ""}`;
  return (
    <div className="mx-auto max-w-6xl space-y-3 p-4 text-sm">
      <p className="text-xs text-zinc-400">
        <Link href="/tasks" className="hover:underline">
          Datasets
        </Link>{" "}
        / {env.data}
      </p>
      <h1 className="text-lg font-semibold">
        {env.data} tasks{dataset ? ` · ${dataset}` : ""}
      </h1>
      <nav aria-label="datasets" className="flex flex-wrap gap-1">
        {sets.map((d) => (
          <Link
            key={d.name}
            href={here({ dataset: d.name })}
            aria-current={d.name === dataset ? "page" : undefined}
            className={`rounded px-2 py-1 font-mono text-xs ${d.name === dataset ? "bg-emerald-700 text-white" : "border border-zinc-700 hover:bg-zinc-800"}`}
          >
            {d.name} ({d.tasks})
          </Link>
        ))}
      </nav>
      {!dataset && <p className="text-zinc-400">No {env.data} dataset is installed.</p>}
      {dataset && (
        <table className="w-full border-collapse text-left" data-testid="dataset-tasks">
          <thead className="text-xs text-zinc-400">
            <tr>
              <th className="py-1 pr-3 font-medium">Task</th>
              <th className="pr-3 font-medium">Query</th>
              <th className="font-medium">Open</th>
            </tr>
          </thead>
          <tbody>
            {result.tasks.map((t) => (
              <tr key={t.id} className="border-t border-zinc-800 align-top">
                <td className="whitespace-nowrap py-1 pr-3 font-mono text-xs">{t.id}</td>
                <td className="pr-3">{t.query.length > 200 ? `${t.query.slice(0, 200)}…` : t.query}</td>
                <td className="whitespace-nowrap text-xs">
                  <Link className="text-emerald-400 hover:underline" href={playUrl(t.env, t.dataset, t.id)}>
                    play
                  </Link>
                  {" · "}
                  <Link className="text-emerald-400 hover:underline" href={`/tasks/${t.env}/${encodeURIComponent(formatTaskRef(t.dataset, t.id))}`}>
                    episodes
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <div className="flex gap-3 text-xs">
          {q.page > 1 && (
            <Link href={here({ page: q.page - 1 })} className="hover:underline">
              ← previous
            </Link>
          )}
          <span className="text-zinc-400">
            page {q.page} / {pages}
          </span>
          {q.page < pages && (
            <Link href={here({ page: q.page + 1 })} className="hover:underline">
              next →
            </Link>
          )}
        </div>
      )}
    </div>
  );
}
