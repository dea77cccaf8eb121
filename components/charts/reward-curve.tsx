"use client";

import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

const COLOURS = ["#34d399", "#60a5fa", "#f472b6", "#fbbf24", "#a78bfa", "#f87171", "#2dd4bf", "#e5e7eb"];

/** Reward over turns for one or more episodes on one chart (turns are 1-based on the axis). */
export function RewardCurve({
  series,
  current,
  onPick,
  height = 160,
}: {
  series: { name: string; rewards: (number | null)[] }[];
  current?: number;
  onPick?: (turnIndex: number) => void;
  height?: number;
}) {
  const n = Math.max(0, ...series.map((s) => s.rewards.length));
  const data = Array.from({ length: n }, (_, i) => {
    const row: Record<string, number | null> = { turn: i + 1 };
    series.forEach((s, j) => (row[`s${j}`] = s.rewards[i] ?? null));
    return row;
  });
  return (
    <div data-testid="reward-curve" style={{ height }}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart
          data={data}
          margin={{ top: 8, right: 12, bottom: 0, left: -20 }}
          onClick={(e) => {
            const label = (e as { activeLabel?: number | string } | null)?.activeLabel;
            if (onPick && label !== undefined) onPick(Number(label) - 1);
          }}
        >
          <CartesianGrid stroke="#27272a" />
          <XAxis dataKey="turn" stroke="#71717a" fontSize={10} />
          <YAxis domain={[0, 1]} stroke="#71717a" fontSize={10} />
          <Tooltip contentStyle={{ background: "#18181b", border: "1px solid #3f3f46", fontSize: 11 }} />
          {series.length > 1 && <Legend wrapperStyle={{ fontSize: 10 }} />}
          {current !== undefined && <ReferenceLine x={current + 1} stroke="#a1a1aa" strokeDasharray="3 3" />}
          {series.map((s, j) => (
            <Line key={j} type="monotone" dataKey={`s${j}`} name={s.name} stroke={COLOURS[j % COLOURS.length]} dot={{ r: 2 }} connectNulls isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
