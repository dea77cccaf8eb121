import Link from "next/link";
import type { Metadata } from "next";
import { DETECTORS } from "@/lib/failures/detectors";
import { listFailureGroups } from "@/lib/failures/groups";
import { failuresHref, failuresParamsSchema, filtersQuery } from "@/lib/failures/page-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Failures · InterCode Studio" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const label = (v: string | null) => v ?? "–";

/**
 * The failing episodes (ended, not solved) grouped by what went wrong, with each group's episodes
 * per model and policy: a count links to the group's episodes of that model and policy (one click),
 * and each of those to the turn in the replay (two).
 */
export default async function FailuresPage({ searchParams }: Props) {
  const p = failuresParamsSchema.parse(await searchParams);
  const result = await listFailureGroups({ filters: p.filters, groupBy: p.groupBy });
  const columns: { model: string | null; policy: string | null; episodes: number }[] = [];
  for (const g of result.groups)
    for (const mp of g.byModelPolicy) {
      const c = columns.find((x) => x.model === mp.model && x.policy === mp.policy);
      if (c) c.episodes += mp.episodes;
      else columns.push({ ...mp });
    }
  columns.sort((a, b) => `${a.model} ${a.policy}`.localeCompare(`${b.model} ${b.policy}`));
  const q = filtersQuery(p.raw);
  return (
    <div className="space-y-3 p-4">
      <div className="flex flex-wrap items-baseline gap-4 text-xs">
        <h1 className="text-lg font-semibold">Failures</h1>
        <span className="text-zinc-300">{result.failing} failing episode(s)</span>
        <span className="text-zinc-400">group by:</span>
        {(["detector", "cluster"] as const).map((g) => (
          <Link
            key={g}
            href={failuresHref("/failures", q, { groupBy: g })}
            aria-current={p.groupBy === g ? "page" : undefined}
            className={p.groupBy === g ? "text-zinc-100" : "text-sky-400 underline"}
          >
            {g === "detector" ? "detector" : "last error"}
          </Link>
        ))}
        <Link className="text-sky-400 underline" href={failuresHref("/failures/tasks", q, {})}>
          task QA
        </Link>
        <Link className="text-sky-400 underline" href={`/episodes${q.size ? `?${q}` : ""}`}>
          episodes
        </Link>
      </div>
      {result.groups.length === 0 ? (
        <p className="text-sm text-zinc-300" data-testid="no-failures">
          No failing episodes match.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="text-xs" data-testid="failure-groups">
            <caption className="sr-only">Failure groups, with their failing episodes per model and policy</caption>
            <thead>
              <tr className="text-left text-zinc-300">
                <th scope="col" className="pr-4">
                  group
                </th>
                <th scope="col" className="pr-4">
                  episodes
                </th>
                {columns.map((c) => (
                  <th scope="col" key={`${c.model}\u0000${c.policy}`} className="pr-4 font-normal">
                    {label(c.model)}
                    <br />
                    <span className="text-zinc-400">{label(c.policy)}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.groups.map((g) => {
                const name = "detector" in g.key ? g.key.detector : g.key.cluster;
                return (
                  <tr key={g.id} className="border-t border-zinc-800 align-top" data-testid={`group-${g.id}`}>
                    <th scope="row" className="max-w-md pr-4 text-left font-normal">
                      <Link className="text-sky-400 underline" href={failuresHref(`/failures/${g.id}`, q, { groupBy: p.groupBy })}>
                        {name}
                      </Link>
                      {g.definition && <div className="text-zinc-400">{g.definition}</div>}
                    </th>
                    <td className="pr-4 tabular-nums">{g.episodes}</td>
                    {columns.map((c) => {
                      const n = g.byModelPolicy.find((x) => x.model === c.model && x.policy === c.policy)?.episodes ?? 0;
                      return (
                        <td key={`${c.model}\u0000${c.policy}`} className="pr-4 tabular-nums">
                          {n === 0 ? (
                            <span className="text-zinc-500">0</span>
                          ) : (
                            <Link
                              className="text-sky-400 underline"
                              aria-label={`${n} ${name} episodes of ${label(c.model)} ${label(c.policy)}`}
                              href={failuresHref(`/failures/${g.id}`, q, { groupBy: p.groupBy, model: c.model ?? undefined, policy: c.policy ?? undefined })}
                            >
                              {n}
                            </Link>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <details className="text-xs text-zinc-300">
        <summary className="cursor-pointer">The detectors</summary>
        <ul className="mt-1 space-y-0.5">
          {DETECTORS.map((d) => (
            <li key={d.name}>
              <code>{d.name}</code> ({d.environments === "all" ? "all environments" : d.environments.join(", ")}): {d.definition}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
