import { describe, expect, it } from "vitest";
import { ansiToHtml, parseAnsi, stripAnsi, xterm256 } from "@/lib/viewer/ansi";

describe("parseAnsi", () => {
  it("keeps plain text as one unstyled span", () => {
    expect(parseAnsi("hello\nworld")).toEqual([
      { text: "hello\nworld", fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false },
    ]);
  });
  it("applies and resets 16-colour, bold and background codes", () => {
    const s = parseAnsi("a\x1b[1;31mred\x1b[0m b\x1b[42mgreen-bg\x1b[49m c");
    expect(s.map((x) => x.text)).toEqual(["a", "red", " b", "green-bg", " c"]);
    expect(s[1]).toMatchObject({ fg: "#cd3131", bold: true });
    expect(s[2]).toMatchObject({ fg: null, bold: false });
    expect(s[3]).toMatchObject({ bg: "#0dbc79" });
    expect(s[4].bg).toBeNull();
  });
  it("reads 256-colour and true-colour sequences, bright colours and ESC[m", () => {
    const s = parseAnsi("\x1b[38;5;196mx\x1b[48;2;1;2;3my\x1b[mz\x1b[94mw");
    expect(s[0].fg).toBe(xterm256(196));
    expect(xterm256(196)).toBe("rgb(255,0,0)");
    expect(s[1]).toMatchObject({ fg: "rgb(255,0,0)", bg: "rgb(1,2,3)" });
    expect(s[2]).toMatchObject({ text: "z", fg: null, bg: null });
    expect(s[3].fg).toBe("#3b8eea");
  });
  it("drops cursor moves, titles and CR before LF, and merges equal styles", () => {
    expect(stripAnsi("\x1b]0;title\x07a\x1b[2Kb\r\nc\x1b[?25h")).toBe("ab\nc");
    expect(parseAnsi("\x1b[31ma\x1b[31mb")).toHaveLength(1);
  });
  it("escapes HTML and writes styles inline", () => {
    expect(ansiToHtml("<b>\x1b[1m&</b>")).toBe('&lt;b&gt;<span style="font-weight:bold">&amp;&lt;/b&gt;</span>');
  });
  it("ignores a malformed extended colour without throwing", () => {
    expect(stripAnsi("\x1b[38;5mok")).toBe("ok");
  });
});
