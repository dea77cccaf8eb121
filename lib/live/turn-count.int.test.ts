import { describe, expect, it } from "vitest";
import { listViewerEpisodes } from "@/lib/db/episodes";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { turnsTaken } from "@/lib/episodes/rules";
import type { OpenMessage } from "@/lib/live/protocol";
import type { LiveEventInput } from "@/lib/live/events";
import { useLiveEpisodeManager } from "@/lib/testing/live-episodes";

// One turn count for the playground header, the episode list and the replay, as InterCode counts
// turns (summary.turns_taken): an explicit submit is a turn, the submit forced by the limit is not.
// Before, after one action and a submit the header said "turns 1 / 10" and the list "2/10".
const liveManager = useLiveEpisodeManager("turn-count");

const open = (turnLimit: number): OpenMessage => ({ type: "open", env: "sql", taskRef: "demo-sql:bike-01", mode: "play", feedback: "none", turnLimit });

/** The count each view shows: the header after a reload, the list row, the replay. */
async function counts(id: string) {
  const seen: LiveEventInput[] = [];
  await liveManager().resume(id, (m) => seen.push(m));
  const opened = seen.find((m) => m.type === "opened");
  const header = turnsTaken(opened && opened.type === "opened" ? opened.turns : []);
  const row = (await listViewerEpisodes({ pageSize: 200 })).rows.find((r) => r.id === id)!;
  const replay = (await getReplayDataById({ id }))!;
  return { header, list: row.turnCount, replay: turnsTaken(replay.turns), limit: row.turnLimit };
}

describe("turn counts", () => {
  it("one action and a typed submit: 2 turns everywhere, the submit recorded as typed", async () => {
    const seen: LiveEventInput[] = [];
    const ep = await liveManager().open(open(10), (m) => seen.push(m));
    await liveManager().action(ep, "SELECT 1", "editor");
    await liveManager().action(ep, "submit", "console");
    expect((seen.find((m) => m.type === "submitted") as { forced?: boolean }).forced).toBeUndefined();
    expect(await counts(ep.id)).toEqual({ header: 2, list: 2, replay: 2, limit: 10 });
    expect((await getReplayDataById({ id: ep.id }))!.turns.map((t) => [t.actor, t.source, t.action])).toEqual([
      ["human", "editor", "SELECT 1"],
      ["human", "console", "submit"],
    ]);
  });

  it("a submit at the turn limit is the forced one: scored, not a turn", async () => {
    const seen: LiveEventInput[] = [];
    const ep = await liveManager().open(open(1), (m) => seen.push(m));
    await liveManager().action(ep, "SELECT 1", "console");
    expect(seen.some((m) => m.type === "limitReached")).toBe(true);
    await liveManager().submit(ep);
    expect(seen.find((m) => m.type === "submitted")).toMatchObject({ forced: true });
    expect(await counts(ep.id)).toEqual({ header: 1, list: 1, replay: 1, limit: 1 });
  });
});
