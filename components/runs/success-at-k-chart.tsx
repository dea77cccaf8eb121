"use client";

import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { RunMeasures } from "@/lib/runs/view-types";

const COLOURS = ["#e5e7eb", "#34d399", "#60a5fa", "#f472b6", "#fbbf24", "#a78bfa"];

/** Success within k turns, k = 1..turn limit: the run overall and each group. */
export function SuccessAtKChart({ series }: { series: RunMeasures[] }) {
  const maxK = Math.max(0, ...series.map((s) => s.successAtK.length));
  const data = Array.from({ length: maxK }, (_, i) => {
    const row: Record<string, number> = { k: i + 1 };
    for (const s of series) row[s.label] = Math.round((s.successAtK[Math.min(i, s.successAtK.length - 1)] ?? 0) * 1000) / 10;
    return row;
  });
  return (
    <div className="h-56" data-testid="run-success-at-k">
      <ResponsiveContainer>
        <LineChart data={data} margin={{ left: -20, right: 8 }}>
          <CartesianGrid stroke="#27272a" />
          <XAxis dataKey="k" stroke="#71717a" fontSize={10} label={{ value: "turns", position: "insideBottomRight", fontSize: 10, fill: "#a1a1aa" }} />
          <YAxis domain={[0, 100]} stroke="#71717a" fontSize={10} unit="%" />
          <Tooltip contentStyle={{ background: "#18181b", border: "1px solid #3f3f46", fontSize: 11 }} />
          <Legend wrapperStyle={{ fontSize: 10 }} />
          {series.map((s, i) => (
            <Line key={s.label} dataKey={s.label} stroke={COLOURS[i % COLOURS.length]} strokeWidth={i === 0 ? 2 : 1} dot={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
