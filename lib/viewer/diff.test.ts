import { describe, expect, it } from "vitest";
import { diffLines, diffStats, MAX_DIFF_LINES } from "@/lib/viewer/diff";

const apply = (d: ReturnType<typeof diffLines>, side: "a" | "b") =>
  d.filter((l) => l.op === "same" || l.op === (side === "a" ? "del" : "add")).map((l) => l.text);

describe("diffLines", () => {
  it("marks nothing when equal", () => {
    expect(diffStats(diffLines("a\nb\n", "a\nb"))).toEqual({ same: 2, del: 0, add: 0 });
  });
  it("finds a longest common subsequence", () => {
    const d = diffLines("a\nb\nc\nd", "a\nc\nd\ne");
    expect(d).toEqual([
      { op: "same", text: "a" },
      { op: "del", text: "b" },
      { op: "same", text: "c" },
      { op: "same", text: "d" },
      { op: "add", text: "e" },
    ]);
  });
  it("rebuilds both sides for random inputs, with a minimal number of changes on a known case", () => {
    for (let n = 0; n < 200; n++) {
      const a = Array.from({ length: (n * 7) % 13 }, (_, i) => String((i * n) % 5)).join("\n");
      const b = Array.from({ length: (n * 5) % 11 }, (_, i) => String((i + n) % 4)).join("\n");
      const d = diffLines(a, b);
      expect(apply(d, "a").join("\n")).toBe(a);
      expect(apply(d, "b").join("\n")).toBe(b);
    }
    // LCS of ABCBDAB and BDCABA has length 4.
    expect(diffStats(diffLines([..."ABCBDAB"].join("\n"), [..."BDCABA"].join("\n"))).same).toBe(4);
  });
  it("handles empty sides and falls back on huge inputs", () => {
    expect(diffLines("", "x")).toEqual([{ op: "add", text: "x" }]);
    expect(diffLines("x", "")).toEqual([{ op: "del", text: "x" }]);
    const big = Array.from({ length: MAX_DIFF_LINES + 5 }, (_, i) => `l${i}`).join("\n");
    const s = diffStats(diffLines(big, "other\n" + big.split("\n").reverse().join("\n")));
    expect(s.del + s.same).toBe(MAX_DIFF_LINES + 5);
  });
});

describe("diffLines on large outputs (finding 8)", () => {
  it("diffs a 200,000-line observation against gold without overflowing the stack", () => {
    const big = Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join("\n");
    const d = diffLines(big, "line 0\ngold only\n");
    expect(d.length).toBe(200_001);
    expect(diffStats(d)).toEqual({ same: 1, del: 199_999, add: 1 });
  });
});
