"use client";

import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

const COLOURS = ["#34d399", "#60a5fa", "#f472b6", "#fbbf24", "#a78bfa", "#f87171", "#2dd4bf", "#e5e7eb"];

/**
 * Reward over turns for one or more episodes on one chart (turns are 1-based on the axis). A series
 * gives a reward per turn, or per point with `turns` (each point's 0-based turn index: the store's
 * aggregate of a long episode, one point per bucket of turns).
 */
export function RewardCurve({
  series,
  current,
  onPick,
  height = 160,
}: {
  series: { name: string; rewards: (number | null)[]; turns?: number[] }[];
  current?: number;
  onPick?: (turnIndex: number) => void;
  height?: number;
}) {
  const rows = new Map<number, Record<string, number | null>>();
  series.forEach((s, j) =>
    s.rewards.forEach((r, i) => {
      const turn = (s.turns?.[i] ?? i) + 1;
      let row = rows.get(turn);
      if (!row) rows.set(turn, (row = { turn }));
      row[`s${j}`] = r ?? null;
    }),
  );
  const data = [...rows.values()].sort((a, b) => a.turn! - b.turn!);
  // The reference line sits on a point of the axis: the last one at or before the current turn.
  let marker: number | undefined;
  if (current !== undefined) for (const row of data) if (row.turn! <= current + 1) marker = row.turn!;
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
          {marker !== undefined && <ReferenceLine x={marker} stroke="#a1a1aa" strokeDasharray="3 3" />}
          {series.map((s, j) => (
            <Line key={j} type="monotone" dataKey={`s${j}`} name={s.name} stroke={COLOURS[j % COLOURS.length]} dot={data.length <= 100 ? { r: 2 } : false} connectNulls isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
