"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ViewerStats } from "@/lib/viewer/view-types";

const COLOURS = ["#34d399", "#60a5fa", "#f472b6", "#fbbf24", "#a78bfa", "#f87171", "#2dd4bf", "#e5e7eb", "#fb923c", "#4ade80", "#38bdf8", "#c084fc"];
const tip = { contentStyle: { background: "#18181b", border: "1px solid #3f3f46", fontSize: 11 } };

function Card({ title, csv, children, testId }: { title: string; csv: string; children: React.ReactNode; testId: string }) {
  return (
    <section className="rounded border border-zinc-800 p-3" data-testid={testId}>
      <div className="mb-2 flex items-center text-xs">
        <h2 className="font-semibold text-zinc-300">{title}</h2>
        <a className="ml-auto text-sky-400 underline" href={csv} download>
          CSV
        </a>
      </div>
      <div className="h-56">{children}</div>
    </section>
  );
}

/** A tick label short enough to fit under a rotated axis. */
function shortLabel(v: unknown): string {
  const t = String(v ?? "");
  return t.length > 22 ? `${t.slice(0, 21)}…` : t;
}

/** The failure-analysis charts of a filtered set, each with its CSV download. */
export function AggregateCharts({ stats, csvBase }: { stats: ViewerStats; csvBase: string }) {
  const csv = (c: string) => `${csvBase}${csvBase.includes("?") ? "&" : "?"}csv=${c}`;
  const success = stats.success.slice(0, 30).map((s) => ({ ...s, successPct: Math.round(s.successRate * 1000) / 10 }));
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Card title="Success rate by group (%)" csv={csv("success")} testId="chart-success">
        <ResponsiveContainer>
          <BarChart data={success} margin={{ left: 0, right: 8, bottom: 8 }}>
            <CartesianGrid stroke="#27272a" />
            {/* Rotated labels need the axis' own height (recharts clips what passes it); long groups are shortened, the tooltip has them whole. */}
            <XAxis dataKey="group" stroke="#a1a1aa" fontSize={9} angle={-30} textAnchor="end" interval={0} height={80} tickFormatter={shortLabel} />
            <YAxis domain={[0, 100]} stroke="#a1a1aa" fontSize={10} />
            <Tooltip {...tip} />
            <Bar dataKey="successPct" name="success %" fill="#34d399" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </Card>
      <Card title="Success within k turns (success vs turn limit)" csv={csv("success-at-k")} testId="chart-success-at-k">
        <ResponsiveContainer>
          <LineChart data={stats.successAtK} margin={{ left: -20 }}>
            <CartesianGrid stroke="#27272a" />
            <XAxis dataKey="k" stroke="#a1a1aa" fontSize={10} />
            <YAxis domain={[0, 1]} stroke="#a1a1aa" fontSize={10} />
            <Tooltip {...tip} />
            <Legend wrapperStyle={{ fontSize: 9 }} />
            {stats.groups.map((g, i) => (
              <Line key={g} dataKey={g} stroke={COLOURS[i % COLOURS.length]} dot={false} isAnimationActive={false} />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </Card>
      <Card title="Reward histogram" csv={csv("reward")} testId="chart-reward">
        <ResponsiveContainer>
          <BarChart data={stats.rewardHistogram} margin={{ left: -20 }}>
            <CartesianGrid stroke="#27272a" />
            <XAxis dataKey="bin" stroke="#a1a1aa" fontSize={9} />
            <YAxis stroke="#a1a1aa" fontSize={10} />
            <Tooltip {...tip} />
            <Bar dataKey="episodes" fill="#60a5fa" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </Card>
      <Card title="Invalid-action rate by turn" csv={csv("invalid")} testId="chart-invalid">
        <ResponsiveContainer>
          <LineChart data={stats.invalidByTurn} margin={{ left: -20 }}>
            <CartesianGrid stroke="#27272a" />
            <XAxis dataKey="turn" stroke="#a1a1aa" fontSize={10} />
            <YAxis domain={[0, 1]} stroke="#a1a1aa" fontSize={10} />
            <Tooltip {...tip} />
            <Line dataKey="rate" stroke="#f87171" isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </Card>
      <Card title="Most common tags" csv={csv("tags")} testId="chart-tags">
        <ResponsiveContainer>
          <BarChart data={stats.tags} layout="vertical" margin={{ left: 40 }}>
            <CartesianGrid stroke="#27272a" />
            <XAxis type="number" stroke="#a1a1aa" fontSize={10} allowDecimals={false} />
            <YAxis type="category" dataKey="tag" stroke="#a1a1aa" fontSize={10} width={110} />
            <Tooltip {...tip} />
            <Bar dataKey="episodes" fill="#fbbf24" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </Card>
    </div>
  );
}
