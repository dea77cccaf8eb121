"use client";

import { memo, useCallback, useEffect, useRef } from "react";
import { defaultRangeExtractor, type Range, useVirtualizer } from "@tanstack/react-virtual";
import type { ReplayAnnotation } from "@/lib/db/episode-rows";
import type { EpisodeCheck, TurnScore } from "@/lib/viewer/view-types";
import type { SqlResultView } from "./sql-result";
import { TurnRow } from "./turn-row";
import type { TurnWindowState } from "./use-turn-window";

const NO_TAGS: ReplayAnnotation[] = [];

/**
 * The replay's timeline of turns, virtualised: only the items in view (and a few around) are in
 * the DOM, whatever the episode's length. Its own component, so that the virtualiser's redraws
 * (a scroll, a row measured again as its output arrives) redraw the list alone, not the page
 * around it (the chart, the gold panel, the annotations).
 */
export const TurnTimeline = memo(function TurnTimeline({
  turnCount,
  current,
  win,
  env,
  playerKind,
  episodeId,
  scoreByIndex,
  ensureScores,
  checkByIndex,
  tagsByTurn,
  sqlView,
  onSqlView,
  onPick,
}: {
  turnCount: number;
  current: number;
  /** The turns held (a new object whenever what it holds changes). */
  win: TurnWindowState;
  env: string;
  playerKind: string;
  episodeId: string;
  scoreByIndex: Map<number, TurnScore>;
  /** Makes sure the scores of the turns from..to (inclusive) are held (use-turn-scores.ts). */
  ensureScores: (from: number, to: number) => void;
  checkByIndex: Map<number, EpisodeCheck["turns"][number]>;
  tagsByTurn: Map<number, ReplayAnnotation[]>;
  sqlView: SqlResultView;
  onSqlView: (v: SqlResultView) => void;
  onPick: (i: number) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // The current turn is always among the items drawn, even while a re-measure moves the scroll
  // range away from it (rows change height as their outputs arrive).
  const withCurrent = useCallback(
    (range: Range) => {
      const shown = defaultRangeExtractor(range);
      if (current < 0 || current >= range.count || shown.includes(current)) return shown;
      return [...shown, current].sort((a, b) => a - b);
    },
    [current],
  );
  const list = useVirtualizer({
    count: turnCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 64,
    gap: 4,
    overscan: 8,
    initialRect: { width: 800, height: 600 },
    rangeExtractor: withCurrent,
  });
  const items = list.getVirtualItems();
  // The rows in view (the current one apart: its page is fetched by the turn window itself).
  const inView = items.filter((v) => v.index !== current);
  const firstShown = inView[0]?.index ?? Math.max(0, current);
  const lastShown = inView.at(-1)?.index ?? Math.max(0, current);
  const { ensure, loadWhole } = win;
  useEffect(() => {
    if (!turnCount) return;
    ensure(firstShown, lastShown);
    ensureScores(firstShown, lastShown);
  }, [ensure, ensureScores, firstShown, lastShown, turnCount]);
  // The current turn scrolled into view, to the nearest edge of the list: its row is drawn
  // (withCurrent), so one layout tells how far; the virtualiser's scrollToIndex, which re-checks its
  // target over the next frames, only when the row is not drawn.
  useEffect(() => {
    if (current < 0) return;
    const box = scrollRef.current;
    const row = box?.querySelector<HTMLElement>(`:scope > ol > [data-index="${current}"]`);
    if (!box || !row) {
      list.scrollToIndex(current, { align: "auto" });
      return;
    }
    const r = row.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (r.top < b.top) box.scrollTop += r.top - b.top;
    else if (r.bottom > b.bottom) box.scrollTop += Math.min(r.bottom - b.bottom, r.top - b.top);
  }, [current, list]);

  return (
    <div ref={scrollRef} className="max-h-[60vh] overflow-auto pr-1" data-testid="timeline-scroll">
      <ol className="relative" style={{ height: turnCount ? list.getTotalSize() : undefined }} data-testid="timeline" data-count={turnCount}>
        {items.map((v) => {
          const t = win.turnAt(v.index);
          const score = scoreByIndex.get(t?.index ?? v.index);
          return (
            <TurnRow
              key={v.key}
              rowRef={list.measureElement}
              start={v.start}
              i={v.index}
              turn={t}
              current={v.index === current}
              env={env}
              playerKind={playerKind}
              episodeId={episodeId}
              reward={t?.reward ?? score?.reward ?? null}
              score={score}
              check={checkByIndex.get(t?.index ?? v.index)}
              tags={tagsByTurn.get(v.index) ?? NO_TAGS}
              sqlView={sqlView}
              onSqlView={onSqlView}
              whole={win.whole(v.index)}
              onWhole={loadWhole}
              onPick={onPick}
            />
          );
        })}
        {!turnCount && <li className="text-xs text-zinc-400">no turns</li>}
      </ol>
    </div>
  );
});
