import { describe, expect, it } from "vitest";
import { applyEditorChange, limitIdle, recordingChunkSchema, timeline, toAsciicast, type Recording } from "./events";

const rec = (over: Partial<Recording> = {}): Recording => ({
  chunks: [
    {
      seq: 0,
      turnIndex: 0,
      startedAt: 1_700_000_000_000,
      bytes: 20,
      events: [
        [0, "i", "l"],
        [100, "o", "l"],
        [150, "e", JSON.stringify([{ o: 0, l: 0, t: "ab" }])],
        [200, "o", "s\r\n"],
      ],
    },
    { seq: 1, turnIndex: 1, startedAt: 1_700_000_001_000, bytes: 10, events: [[0, "o", "out\r\n$ "]] },
  ],
  bytes: 30,
  truncated: false,
  cols: 90,
  rows: 20,
  ...over,
});

describe("recording", () => {
  it("writes asciicast v2: a header line, then [seconds, o|i, data] lines, editor changes left out", () => {
    const lines = toAsciicast(rec(), { title: "t" })
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ version: 2, width: 90, height: 20, timestamp: 1_700_000_000, title: "t" });
    expect(lines.slice(1)).toEqual([
      [0, "i", "l"],
      [0.1, "o", "l"],
      [0.2, "o", "s\r\n"],
      [1, "o", "out\r\n$ "],
    ]);
  });

  it("puts every chunk on one clock, in order, with the turn of its chunk", () => {
    const t = timeline(rec());
    expect(t.map((e) => [e.t, e.turnIndex])).toEqual([
      [0, 0],
      [100, 0],
      [150, 0],
      [200, 0],
      [1000, 1],
    ]);
  });

  it("shortens long pauses for playback", () => {
    const t = limitIdle(timeline(rec()), 300);
    expect(t.map((e) => e.t)).toEqual([0, 100, 150, 200, 500]);
  });

  it("applies editor changes, several in one edit from the end", () => {
    expect(
      applyEditorChange(
        "hello world",
        JSON.stringify([
          { o: 0, l: 5, t: "HI" },
          { o: 6, l: 5, t: "THERE" },
        ]),
      ),
    ).toBe("HI THERE");
    expect(applyEditorChange("x", "not json")).toBe("x");
  });

  it("refuses a chunk with a bad event, naming where", () => {
    const r = recordingChunkSchema.safeParse({ turnIndex: 0, startedAt: 1, events: [[0, "x", "a"]] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["events", 0, 1]);
  });
});
