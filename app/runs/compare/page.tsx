import Link from "next/link";
import type { Metadata } from "next";
import { pairedOutcomes, pairRuns, type PairedTask } from "@/lib/runs/pair-runs";
import { comparePaired, type PairedSummary } from "@/lib/stats/paired";
import { buildRunView } from "@/lib/runs/run-view";
import { pct } from "@/lib/runs/view-types";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare runs · InterCode Studio" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

function Group({ title, testId, pairs, names }: { title: string; testId: string; pairs: PairedTask[]; names: [string, string] }) {
  return (
    <section className="space-y-1" data-testid={testId} data-count={pairs.length}>
      <h2 className="text-sm font-semibold text-zinc-300">
        {title}: {pairs.length}
      </h2>
      {pairs.length > 0 && (
        <table className="text-xs">
          <thead>
            <tr className="text-left text-zinc-400">
              <th className="pr-4">task</th>
              <th className="pr-4">{names[0]}</th>
              <th className="pr-4">{names[1]}</th>
              <th>side by side</th>
            </tr>
          </thead>
          <tbody>
            {pairs.map((p) => (
              <tr key={p.taskId} data-testid="pair-row" data-task={p.taskId}>
                <td className="pr-4 font-mono">{p.taskId}</td>
                <td className="pr-4">
                  <Link className="text-sky-400 underline" href={`/episodes/${p.a.episodeId}`}>
                    {p.a.reward === null ? "–" : p.a.reward.toFixed(2)}
                  </Link>
                </td>
                <td className="pr-4">
                  <Link className="text-sky-400 underline" href={`/episodes/${p.b.episodeId}`}>
                    {p.b.reward === null ? "–" : p.b.reward.toFixed(2)}
                  </Link>
                </td>
                <td>
                  <Link className="text-sky-400 underline" data-testid="pair-compare" href={`/compare?ids=${p.a.episodeId},${p.b.episodeId}`}>
                    compare
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const points = (x: number) => `${x > 0 ? "+" : ""}${(x * 100).toFixed(1)} pp`;
const pValue = (p: number) => (p < 0.0001 ? "< 0.0001" : p.toPrecision(3));

function StatsRow({ label, s }: { label: string; s: PairedSummary }) {
  return (
    <tr data-testid="paired-stats-row" data-group={label} data-p={s.mcnemarP} data-low={s.diffCI?.low} data-high={s.diffCI?.high}>
      <th scope="row" className="pr-4 text-left font-normal">
        {label}
      </th>
      <td className="pr-4 text-right">{s.tasks}</td>
      <td className="pr-4 text-right">{s.both}</td>
      <td className="pr-4 text-right">{s.onlyA}</td>
      <td className="pr-4 text-right">{s.onlyB}</td>
      <td className="pr-4 text-right">{s.neither}</td>
      <td className="pr-4 text-right">{s.diffCI ? points(s.diffCI.diff) : "–"}</td>
      <td className="pr-4 text-right">{s.diffCI ? `${points(s.diffCI.low)} to ${points(s.diffCI.high)}` : "–"}</td>
      <td className="text-right">{s.onlyA + s.onlyB ? pValue(s.mcnemarP) : "– (none)"}</td>
    </tr>
  );
}

/** The paired statistics: McNemar's exact test and the bootstrap interval, overall and per group, with what they mean. */
function PairedStats({ stats, names, groupLabel }: { stats: ReturnType<typeof comparePaired>; names: [string, string]; groupLabel: string }) {
  const { overall } = stats;
  const ci = overall.diffCI;
  if (!ci) return null;
  const discordant = overall.onlyA + overall.onlyB;
  return (
    <section className="space-y-2" data-testid="paired-stats" aria-labelledby="paired-stats-title">
      <h2 id="paired-stats-title" className="text-sm font-semibold text-zinc-300">
        Is the difference real?
      </h2>
      <p className="text-xs text-zinc-300" data-testid="paired-ci">
        Success rate of {names[0]} minus {names[1]} on the same {overall.tasks} tasks: {points(ci.diff)}. {Math.round(ci.level * 100)}% bootstrap interval:{" "}
        {points(ci.low)} to {points(ci.high)} ({ci.resamples.toLocaleString("en")} resamples of the tasks, each keeping both runs&apos; outcomes; seed {ci.seed}
        ).
        {ci.low > 0
          ? ` The interval is above zero: ${names[0]} did better.`
          : ci.high < 0
            ? ` The interval is below zero: ${names[1]} did better.`
            : " The interval includes zero: these tasks do not show either run is better."}
      </p>
      <p className="text-xs text-zinc-300" data-testid="paired-mcnemar">
        {discordant
          ? `McNemar's exact test on the ${discordant} tasks only one run solved (${overall.onlyA} by ${names[0]}, ${overall.onlyB} by ${names[1]}): two-sided p = ${pValue(overall.mcnemarP)}, the chance of a split at least this uneven if both runs were equally good.`
          : "No task was solved by one run only, so McNemar's test has nothing to weigh (p = 1)."}
      </p>
      <table className="text-xs">
        <caption className="sr-only">Paired statistics overall and per {groupLabel}</caption>
        <thead>
          <tr className="text-left text-zinc-400">
            <th scope="col" className="pr-4">
              {groupLabel}
            </th>
            <th scope="col" className="pr-4 text-right">
              tasks
            </th>
            <th scope="col" className="pr-4 text-right">
              both
            </th>
            <th scope="col" className="pr-4 text-right">
              {names[0]} only
            </th>
            <th scope="col" className="pr-4 text-right">
              {names[1]} only
            </th>
            <th scope="col" className="pr-4 text-right">
              neither
            </th>
            <th scope="col" className="pr-4 text-right">
              difference
            </th>
            <th scope="col" className="pr-4 text-right">
              {Math.round(ci.level * 100)}% interval
            </th>
            <th scope="col" className="text-right">
              McNemar p
            </th>
          </tr>
        </thead>
        <tbody>
          <StatsRow label="all" s={overall} />
          {stats.groups.map((g) => (
            <StatsRow key={g.group} label={g.group} s={g} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** /runs/compare?a=<run>&b=<run>: two runs paired task by task: solved by both, by one only, by neither. */
export default async function CompareRunsPage({ searchParams }: Props) {
  const q = await searchParams;
  const [a, b] = await Promise.all([buildRunView(one(q.a)), buildRunView(one(q.b))]);
  if (!a || !b) {
    return (
      <div className="space-y-2 p-4">
        <h1 className="text-lg font-semibold">Compare runs</h1>
        <p className="text-sm text-zinc-400">
          {!one(q.a) || !one(q.b)
            ? "Give two runs: /runs/compare?a=<run id>&b=<run id>, or pick one from a run's page."
            : `No run ${!a ? one(q.a) : one(q.b)}.`}
        </p>
        <Link className="text-xs text-sky-400 underline" href="/runs">
          all runs
        </Link>
      </div>
    );
  }
  const p = pairRuns(a.tasks, b.tasks);
  const paired = p.both.length + p.aOnly.length + p.bOnly.length + p.neither.length;
  const rate = (n: number) => (paired ? pct(n / paired) : "–");
  const names: [string, string] = [a.name, b.name];
  const sameTasks = a.config?.dataset === b.config?.dataset && a.config?.env === b.config?.env;
  return (
    <div className="space-y-4 p-4">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="text-lg font-semibold">Compare runs</h1>
        <Link className="text-xs text-sky-400 underline" href={`/runs/${a.id}`}>
          {a.name}
        </Link>
        <span className="text-xs text-zinc-400">vs</span>
        <Link className="text-xs text-sky-400 underline" href={`/runs/${b.id}`}>
          {b.name}
        </Link>
      </div>
      {!sameTasks && <p className="text-xs text-amber-400">The runs are over different datasets; only tasks with the same id are paired.</p>}
      <p className="text-xs text-zinc-300" data-testid="pair-summary">
        {paired} tasks finished by both: {names[0]} solved {rate(p.both.length + p.aOnly.length)}, {names[1]} solved {rate(p.both.length + p.bOnly.length)}.
        {p.unpaired ? ` ${p.unpaired} tasks finished by one run only are left out.` : ""}
      </p>
      {a.tasks.some((t) => t.sealed) || b.tasks.some((t) => t.sealed) ? (
        <p className="text-xs text-zinc-400" data-testid="paired-stats-sealed">
          Some tasks are sealed (an open study&apos;s): no statistics are shown until the seal is lifted.
        </p>
      ) : (
        <PairedStats
          stats={comparePaired(pairedOutcomes(p))}
          names={names}
          groupLabel={a.config?.env === "bash" ? "file system" : a.config?.env === "sql" ? "hardness" : "group"}
        />
      )}
      <Group title="Solved by both" testId="pair-both" pairs={p.both} names={names} />
      <Group title={`Solved by ${names[0]} only`} testId="pair-a-only" pairs={p.aOnly} names={names} />
      <Group title={`Solved by ${names[1]} only`} testId="pair-b-only" pairs={p.bOnly} names={names} />
      <Group title="Solved by neither" testId="pair-neither" pairs={p.neither} names={names} />
    </div>
  );
}
