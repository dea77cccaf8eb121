import { describe, expect, it } from "vitest";
import type { RecordingChunk } from "@/lib/recording/events";
import { MAX_CHUNK_BYTES } from "@/lib/recording/events";
import { EpisodeRecorder } from "./recorder";

function setup(ok = () => true) {
  const sent: RecordingChunk[] = [];
  const r = new EpisodeRecorder(
    (c) => (ok() ? (sent.push(c), true) : false),
    () => ({ cols: 80, rows: 24 }),
  );
  return { r, sent };
}

describe("EpisodeRecorder", () => {
  it("holds events until the episode is stored, then sends them per turn, in order", () => {
    const { r, sent } = setup();
    r.push("i", "l");
    r.push("o", "l");
    r.setTurn(1); // turn 0 ended before the episode was known to be stored
    expect(sent).toHaveLength(0);
    r.push("i", "x");
    r.enabled = true;
    r.flush();
    expect(sent.map((c) => [c.turnIndex, c.events.map((e) => e[2]).join("")])).toEqual([
      [0, "ll"],
      [1, "x"],
    ]);
    expect(sent[0]).toMatchObject({ cols: 80, rows: 24 });
  });

  it("keeps chunks while the socket is down and sends them when it is back", () => {
    let up = false;
    const { r, sent } = setup(() => up);
    r.enabled = true;
    r.push("i", "a");
    r.flush();
    expect(sent).toHaveLength(0);
    up = true;
    r.flush();
    expect(sent).toHaveLength(1);
  });

  it("splits a large output so no chunk passes the chunk size", () => {
    const { r, sent } = setup();
    r.enabled = true;
    r.push("o", "z".repeat(MAX_CHUNK_BYTES * 3 + 5));
    r.flush();
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const c of sent) expect(c.events.reduce((n, e) => n + e[2].length, 0)).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(sent.flatMap((c) => c.events.map((e) => e[2])).join("").length).toBe(MAX_CHUNK_BYTES * 3 + 5);
  });
});
