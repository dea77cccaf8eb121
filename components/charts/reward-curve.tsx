"use client";

import { createContext, useContext, useMemo } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis, usePlotArea, useXAxisScale } from "recharts";

const COLOURS = ["#34d399", "#60a5fa", "#f472b6", "#fbbf24", "#a78bfa", "#f87171", "#2dd4bf", "#e5e7eb"];

/** The axis point (1-based turn) the current-turn marker sits on; undefined for none. */
const MarkerContext = createContext<number | undefined>(undefined);

/**
 * The current turn's dashed line, drawn inside the chart from the axis' own scale. It reads the
 * turn from a context, so a step redraws this line only, never the chart's lines and axes (a
 * 500-point chart redrawn at every step was most of a step's cost on a long episode).
 */
function CurrentMarker() {
  const turn = useContext(MarkerContext);
  const scale = useXAxisScale();
  const area = usePlotArea();
  if (turn === undefined || !scale || !area) return null;
  const x = scale(turn, { position: "middle" });
  if (x === undefined || !Number.isFinite(x)) return null;
  return (
    <line
      className="recharts-reference-line-line"
      x1={x}
      x2={x}
      y1={area.y}
      y2={area.y + area.height}
      stroke="#a1a1aa"
      strokeDasharray="3 3"
      data-testid="reward-curve-marker"
    />
  );
}

/**
 * Reward over turns for one or more episodes on one chart (turns are 1-based on the axis). A series
 * gives a reward per turn, or per point with `turns` (each point's 0-based turn index: the store's
 * aggregate of a long episode, one point per bucket of turns). The chart is drawn again only when
 * `series`, `onPick` or `height` change (pass them memoised); `current` moves the marker alone.
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
  const data = useMemo(() => {
    const rows = new Map<number, Record<string, number | null>>();
    series.forEach((s, j) => {
      s.rewards.forEach((r, i) => {
        const turn = (s.turns?.[i] ?? i) + 1;
        let row = rows.get(turn);
        if (!row) rows.set(turn, (row = { turn }));
        row[`s${j}`] = r ?? null;
      });
    });
    return [...rows.values()].sort((a, b) => a.turn! - b.turn!);
  }, [series]);
  // The marker sits on a point of the axis: the last one at or before the current turn (binary search).
  let marker: number | undefined;
  if (current !== undefined) {
    let lo = 0;
    let hi = data.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (data[mid].turn! <= current + 1) {
        marker = data[mid].turn!;
        lo = mid + 1;
      } else hi = mid - 1;
    }
  }
  const chart = useMemo(
    () => (
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
          {series.map((s, j) => (
            <Line
              key={j}
              type="monotone"
              dataKey={`s${j}`}
              name={s.name}
              stroke={COLOURS[j % COLOURS.length]}
              dot={data.length <= 100 ? { r: 2 } : false}
              connectNulls
              isAnimationActive={false}
            />
          ))}
          <CurrentMarker />
        </LineChart>
      </ResponsiveContainer>
    ),
    [data, series, onPick],
  );
  return (
    <div data-testid="reward-curve" style={{ height }}>
      <MarkerContext value={marker}>{chart}</MarkerContext>
    </div>
  );
}
