import Link from "next/link";
import type { Metadata } from "next";
import { AggregateCharts } from "@/components/charts/aggregate-charts";
import { STATS_DIMENSIONS } from "@/lib/db/stats-dimensions";
import { parseGroupBy } from "@/lib/stats/measures";
import { computeViewerStats } from "@/lib/stats/aggregates";
import { parseListParams, toEpisodeFilters } from "@/lib/viewer/list-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Episode aggregates · InterCode Studio" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Aggregates of the filtered episodes (the list's filters, from the URL), grouped by `group`. */
export default async function StatsPage({ searchParams }: Props) {
  const raw = await searchParams;
  const p = parseListParams(raw);
  const groupText = typeof raw.group === "string" ? raw.group : "env,actor,model,policy";
  let groupBy;
  try {
    groupBy = parseGroupBy(groupText);
  } catch {
    groupBy = parseGroupBy("env");
  }
  const stats = await computeViewerStats({ filters: toEpisodeFilters(p), groupBy });
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string" && v !== "" && k !== "page" && k !== "sort" && k !== "dir") q.set(k, v);
  const listQ = new URLSearchParams(q);
  listQ.delete("group");
  return (
    <div className="space-y-3 p-4">
      <div className="flex flex-wrap items-baseline gap-4 text-xs">
        <h1 className="text-lg font-semibold">Aggregates</h1>
        <Link className="text-sky-400 underline" href={`/episodes${listQ.size ? `?${listQ}` : ""}`}>
          back to the list
        </Link>
        <span className="text-zinc-400">group by:</span>
        {["env", "actor,model,policy", "env,actor,model,policy", "dataset", "hardness", "annotator", "turnLimit"].map((g) => {
          const gq = new URLSearchParams(q);
          gq.set("group", g);
          return (
            <Link key={g} href={`/episodes/stats?${gq}`} className={groupText === g ? "text-zinc-100" : "text-sky-400"}>
              {g}
            </Link>
          );
        })}
        <span className="text-zinc-400">({Object.keys(STATS_DIMENSIONS).join(", ")} via ?group=)</span>
      </div>
      <table className="text-xs" data-testid="success-table">
        <thead>
          <tr className="text-left text-zinc-400">
            <th className="pr-4">group</th>
            <th className="pr-4">episodes</th>
            <th className="pr-4">solved</th>
            <th className="pr-4">success</th>
            <th className="pr-4">mean reward</th>
            <th className="pr-4">mean turns</th>
            <th>error rate</th>
          </tr>
        </thead>
        <tbody>
          {stats.success.map((s) => (
            <tr key={s.group}>
              <td className="pr-4">{s.group}</td>
              <td className="pr-4">{s.episodes}</td>
              <td className="pr-4">{s.solved}</td>
              <td className="pr-4">{(s.successRate * 100).toFixed(1)}%</td>
              <td className="pr-4">{s.meanReward.toFixed(3)}</td>
              <td className="pr-4">{s.meanTurns.toFixed(2)}</td>
              <td>{s.errorRate === null ? "–" : `${(s.errorRate * 100).toFixed(1)}%`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {stats.groupsTotal > stats.success.length ? (
        <p className="text-xs text-zinc-400" data-testid="more-groups">
          the first {stats.success.length} of {stats.groupsTotal.toLocaleString("en")} groups; every group is in the{" "}
          <a className="text-sky-400 underline" href={`/api/stats?${new URLSearchParams([...q, ["csv", "success"]])}`} download>
            CSV
          </a>
        </p>
      ) : null}
      <AggregateCharts stats={stats} csvBase={`/api/stats?${q}`} />
    </div>
  );
}
