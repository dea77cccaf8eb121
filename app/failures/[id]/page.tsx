import Link from "next/link";
import { notFound } from "next/navigation";
import type { Metadata } from "next";
import { getFailureGroupById } from "@/lib/failures/groups";
import { failuresHref, failuresParamsSchema, filtersQuery } from "@/lib/failures/page-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Failure group · InterCode Studio" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const countList = (m: Record<string, number>) =>
  Object.entries(m)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(" · ");

/** One failure group's episodes (under the failures page's filters), each linking to the turn it points at. */
export default async function FailureGroupPage({ params, searchParams }: Props) {
  const { id } = await params;
  const p = failuresParamsSchema.parse(await searchParams);
  const found = /^[0-9a-f]{12}$/.test(id) ? await getFailureGroupById({ id, groupBy: p.groupBy, filters: p.filters }) : null;
  if (!found) notFound();
  const { group, episodes } = found;
  const q = filtersQuery(p.raw);
  const name = "detector" in group.key ? group.key.detector : group.key.cluster;
  return (
    <div className="space-y-3 p-4 text-xs">
      <div className="flex flex-wrap items-baseline gap-4">
        <h1 className="text-lg font-semibold">
          {"detector" in group.key ? "Detector" : "Last error"}: <code>{name}</code>
        </h1>
        <Link className="text-sky-400 underline" href={failuresHref("/failures", q, { groupBy: p.groupBy })}>
          all groups
        </Link>
      </div>
      {group.definition && <p className="text-zinc-300">{group.definition}</p>}
      <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-zinc-300">
        <dt className="text-zinc-400">episodes</dt>
        <dd data-testid="group-episodes">{group.episodes}</dd>
        <dt className="text-zinc-400">models</dt>
        <dd>{countList(group.byModel)}</dd>
        <dt className="text-zinc-400">policies</dt>
        <dd>{countList(group.byPolicy)}</dd>
        <dt className="text-zinc-400">hardness</dt>
        <dd>{countList(group.byHardness)}</dd>
        <dt className="text-zinc-400">group id</dt>
        <dd>
          <code>{group.id}</code>
        </dd>
      </dl>
      <table data-testid="group-episode-list">
        <caption className="sr-only">The group&apos;s episodes, each with the turn it points at</caption>
        <thead>
          <tr className="text-left text-zinc-300">
            <th scope="col" className="pr-4">
              turn
            </th>
            <th scope="col" className="pr-4">
              task
            </th>
            <th scope="col" className="pr-4">
              model
            </th>
            <th scope="col" className="pr-4">
              policy
            </th>
            <th scope="col" className="pr-4">
              hardness
            </th>
            <th scope="col">reward</th>
          </tr>
        </thead>
        <tbody>
          {episodes.map((e) => (
            <tr key={e.episodeId} className="border-t border-zinc-800">
              <td className="pr-4">
                <Link className="text-sky-400 underline" href={`/episodes/${encodeURIComponent(e.episodeId)}${e.turn === null ? "" : `?turn=${e.turn + 1}`}`}>
                  {e.turn === null ? `episode ${e.episodeId.slice(0, 8)}` : `turn ${e.turn + 1} of ${e.episodeId.slice(0, 8)}`}
                </Link>
              </td>
              <td className="pr-4">
                {e.environment}:{e.taskId}
              </td>
              <td className="pr-4">{e.model ?? "–"}</td>
              <td className="pr-4">{e.policy ?? "–"}</td>
              <td className="pr-4">{e.hardness ?? "–"}</td>
              <td className="tabular-nums">{e.reward ?? "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
