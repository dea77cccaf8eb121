"use client";

import dynamic from "next/dynamic";
import type { ComponentProps } from "react";
import type { RewardCurve as RewardCurveType } from "./reward-curve";

type RewardCurveProps = ComponentProps<typeof RewardCurveType>;

// recharts is the largest script of the viewer pages (~450 kB before compression). Loaded apart,
// after hydration, it keeps the page interactive without waiting for the chart library.
const RewardCurveChunk = dynamic(() => import("./reward-curve").then((m) => m.RewardCurve), { ssr: false, loading: () => null });

/** `RewardCurve`, loaded in its own chunk once the page is interactive; its box keeps the height meanwhile. */
export function LazyRewardCurve(props: RewardCurveProps) {
  return (
    <div style={{ minHeight: props.height ?? 160 }}>
      <RewardCurveChunk {...props} />
    </div>
  );
}
