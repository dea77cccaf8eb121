import { beforeAll, describe, expect, it } from "vitest";
import { CURVE_POINTS, curveBucket, TURN_CUT, WINDOW_CUT, WINDOW_TURNS } from "@/lib/db/replay-window";
import { countTurnScoreGapsByEpisode, listTurnReplayCurveByEpisode, listTurnReplaysByEpisode, putTurnReplays } from "./turn-replays";
import { insertEpisodesBulk, type BulkEpisode } from "./bulk-import";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import { getReplayHeaderById, listTurnWindowByEpisode } from "./viewer-queries";

const TURNS = 1_234;

function long(id: string, turns: number): BulkEpisode {
  return {
    id,
    sourceKey: `window:${id}`,
    environment: "bash",
    dataset: "window-test",
    taskId: id,
    taskIndex: 0,
    query: "a long episode",
    playerKind: "model",
    model: "m",
    policy: "try-again",
    turnLimit: turns,
    status: "submitted",
    reward: 1,
    success: true,
    startedAt: 1_700_000_000_000,
    turns: Array.from({ length: turns }, (_, k) => ({
      index: k,
      actor: "model",
      action: `echo ${k}`,
      // Turn 7 is longer than what travels with the current turn; "é" counts as one character.
      observation: `t${k}:` + (k === 7 ? "é".repeat(TURN_CUT + 10) : "o".repeat(1_000)),
      ok: true,
      // Rewards rise with the turn, with a gap of unrecorded ones.
      reward: k >= 100 && k < 110 ? null : k / turns,
    })),
  };
}

describe.each(storeEngines())("the replay's window on %s", (engine) => {
  useTempStore("replay-window", engine);
  beforeAll(async () => {
    await insertEpisodesBulk({ episodes: [long("long", TURNS), long("short", 10)] });
  });

  it("hands the page a header, the turn count, the curve's aggregate and one window around the turn", async () => {
    const h = (await getReplayHeaderById({ id: "long", turn: 600 }))!;
    expect(h.turnCount).toBe(TURNS);
    expect(h.window.turns).toHaveLength(WINDOW_TURNS);
    expect(h.window.from).toBe(600 - WINDOW_TURNS / 2);
    expect(h.window.turns.map((t) => t.index)).toEqual(Array.from({ length: WINDOW_TURNS }, (_, k) => h.window.from + k));
    // Others cut to WINDOW_CUT, the turn itself whole (it is shorter than TURN_CUT).
    const own = h.window.turns.find((t) => t.index === 600)!;
    expect(own.observation).toHaveLength(own.observationChars);
    const other = h.window.turns.find((t) => t.index === 601)!;
    expect(other.observation).toHaveLength(WINDOW_CUT);
    expect(other.observationChars).toBe("t601:".length + 1_000);
    // The curve: at most CURVE_POINTS points, each the highest recorded reward of its bucket.
    expect(h.curve.bucket).toBe(Math.ceil(TURNS / CURVE_POINTS));
    expect(h.curve.points.length).toBeLessThanOrEqual(CURVE_POINTS);
    expect(h.curve.points[1]).toEqual({ turn: h.curve.bucket, reward: (2 * h.curve.bucket - 1) / TURNS });
    const gap = h.curve.points.filter((p) => p.turn >= 100 && p.turn < 110 && p.turn + h.curve.bucket <= 110);
    expect(gap.length).toBeGreaterThan(0);
    expect(gap.every((p) => p.reward === null)).toBe(true);
    // Past the end, the window is the last one.
    const end = (await getReplayHeaderById({ id: "long", turn: 99_999 }))!;
    expect(end.window.turns.at(-1)!.index).toBe(TURNS - 1);
    expect(end.window.turns).toHaveLength(WINDOW_TURNS);
    // A short episode: every turn, one point a turn.
    const short = (await getReplayHeaderById({ id: "short" }))!;
    expect(short.window.turns).toHaveLength(10);
    expect(short.curve).toMatchObject({ bucket: 1 });
    expect(short.curve.points.map((p) => p.turn)).toEqual(Array.from({ length: 10 }, (_, k) => k));
    expect(await getReplayHeaderById({ id: "nope" })).toBeNull();
  });

  it("pages turns by index with observations cut in characters, or whole", async () => {
    const w = await listTurnWindowByEpisode({ episodeId: "long", from: 5, limit: 5, cut: TURN_CUT });
    expect(w.turns.map((t) => t.index)).toEqual([5, 6, 7, 8, 9]);
    const seven = w.turns[2];
    expect(seven.observation).toHaveLength(TURN_CUT);
    expect(seven.observationChars).toBe("t7:".length + TURN_CUT + 10);
    const whole = await listTurnWindowByEpisode({ episodeId: "long", from: 7, limit: 1, cut: null });
    expect(whole.turns[0].observation).toBe(`t7:${"é".repeat(TURN_CUT + 10)}`);
    expect((await listTurnWindowByEpisode({ episodeId: "long", from: TURNS - 2, limit: 50, cut: 10 })).turns.map((t) => t.observation)).toEqual([
      `t${TURNS - 2}:oooo`,
      `t${TURNS - 1}:oooo`,
    ]);
  });

  it("reads a cached replay by page and as the curve's aggregate, and counts what the turn scores need, never reading every turn's row", async () => {
    expect(await countTurnScoreGapsByEpisode({ episodeId: "long" })).toEqual({ unrewarded: 10, replayed: 0 });
    // A replay whose would-be reward after turn k is k / 2,000, with turn 105's unscored.
    await putTurnReplays({
      episodeId: "long",
      turns: Array.from({ length: TURNS }, (_, k) => ({ index: k, reward: k === 105 ? null : k / 2_000, agrees: k % 2 === 0, columns: null })),
    });
    expect(await countTurnScoreGapsByEpisode({ episodeId: "long" })).toEqual({ unrewarded: 10, replayed: TURNS });
    const page = await listTurnReplaysByEpisode({ episodeId: "long", from: 600, limit: WINDOW_TURNS });
    expect(page.map((r) => r.index)).toEqual(Array.from({ length: WINDOW_TURNS }, (_, k) => 600 + k));
    expect(page[1]).toEqual({ index: 601, reward: 601 / 2_000, agrees: false, columns: null });
    expect((await listTurnReplaysByEpisode({ episodeId: "long", from: TURNS - 2, limit: WINDOW_TURNS })).map((r) => r.index)).toEqual([TURNS - 2, TURNS - 1]);
    expect(await listTurnReplaysByEpisode({ episodeId: "long" })).toHaveLength(TURNS);
    const bucket = curveBucket(TURNS);
    const curve = await listTurnReplayCurveByEpisode({ episodeId: "long", bucket });
    expect(curve.length).toBe(Math.ceil(TURNS / bucket));
    expect(curve.length).toBeLessThanOrEqual(CURVE_POINTS);
    expect(curve[1]).toEqual({ turn: bucket, reward: (2 * bucket - 1) / 2_000 });
    expect(await listTurnReplayCurveByEpisode({ episodeId: "short", bucket: 1 })).toEqual([]);
  });
});
