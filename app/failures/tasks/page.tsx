import Link from "next/link";
import type { Metadata } from "next";
import { listTaskSuspects } from "@/lib/failures/task-qa";
import { failuresHref, failuresParamsSchema, filtersQuery } from "@/lib/failures/page-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Task QA · InterCode Studio" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const KIND_LABEL = {
  "gold-check-failed": "gold check fails",
  "models-agree-against-gold": "models agree against the gold",
  "reward-hacking": "reward hacking",
} as const;

/** Tasks suspected of a broken gold or of reward hacking, with the evidence; exportable as CSV or JSON. */
export default async function TaskQaPage({ searchParams }: Props) {
  const p = failuresParamsSchema.parse(await searchParams);
  const { suspects, counts } = await listTaskSuspects({ filters: p.filters });
  const q = filtersQuery(p.raw);
  return (
    <div className="space-y-3 p-4 text-xs">
      <div className="flex flex-wrap items-baseline gap-4">
        <h1 className="text-lg font-semibold">Task QA</h1>
        <span className="text-zinc-300" data-testid="qa-counts">
          {counts["models-agree-against-gold"]} agreeing against the gold · {counts["reward-hacking"]} reward hacking
        </span>
        <a className="text-sky-400 underline" href={failuresHref("/api/failures/tasks", q, { format: "csv" })} download="task-qa.csv">
          export CSV
        </a>
        <a className="text-sky-400 underline" href={failuresHref("/api/failures/tasks", q, { format: "json" })} download="task-qa.json">
          export JSON
        </a>
        <Link className="text-sky-400 underline" href={failuresHref("/failures", q, {})}>
          failures
        </Link>
      </div>
      <p className="text-zinc-400">
        A failing gold check comes from <code>icstudio tasks-qa --gold-check REPORT</code> (the report of <code>icstudio gold-check --json</code>).
      </p>
      {suspects.length === 0 ? (
        <p className="text-sm text-zinc-300" data-testid="no-suspects">
          No suspect tasks among the episodes that match.
        </p>
      ) : (
        <table data-testid="task-suspects">
          <caption className="sr-only">Suspect tasks with their evidence and episodes</caption>
          <thead>
            <tr className="text-left text-zinc-300">
              <th scope="col" className="pr-4">
                task
              </th>
              <th scope="col" className="pr-4">
                suspected of
              </th>
              <th scope="col" className="pr-4">
                evidence
              </th>
              <th scope="col">episodes</th>
            </tr>
          </thead>
          <tbody>
            {suspects.map((s, i) => (
              <tr key={`${s.environment}:${s.dataset}:${s.taskId}:${s.kind}:${i}`} className="border-t border-zinc-800 align-top">
                <td className="pr-4 whitespace-nowrap">
                  {s.environment}/{s.dataset}#{s.taskId}
                </td>
                <td className="pr-4">{KIND_LABEL[s.kind]}</td>
                <td className="max-w-xl pr-4 break-words">{s.evidence}</td>
                <td>
                  <ul>
                    {s.episodes.map((e) => (
                      <li key={`${e.episodeId}:${e.turn}`}>
                        <Link
                          className="text-sky-400 underline"
                          href={`/episodes/${encodeURIComponent(e.episodeId)}${e.turn === null ? "" : `?turn=${e.turn + 1}`}`}
                        >
                          {e.model ?? "–"} {e.policy ?? ""} {e.turn === null ? "" : `turn ${e.turn + 1}`}
                        </Link>
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
