import { describe, expect, it } from "vitest";
import { LineEditor } from "./line-editor";

function setup() {
  const lines: string[] = [];
  let interrupts = 0;
  let screen = "";
  const ed = new LineEditor(
    {
      write: (d) => (screen += d),
      line: (t) => lines.push(t),
      interrupt: () => interrupts++,
    },
    "$ ",
  );
  return { ed, lines, interrupts: () => interrupts, screen: () => screen };
}

describe("LineEditor", () => {
  it("enters one line per Enter, ignoring blank lines", () => {
    const { ed, lines } = setup();
    for (const ch of "ls -l") ed.input(ch);
    ed.input("\r");
    ed.input("\r");
    ed.input("echo hi\r");
    expect(lines).toEqual(["ls -l", "echo hi"]);
  });

  it("edits with backspace and cursor keys", () => {
    const { ed, lines } = setup();
    ed.input("ecoh");
    ed.input("\x7f");
    ed.input("\x7f");
    ed.input("ho x");
    ed.input("\x1b[D");
    ed.input("\x1b[D");
    ed.input("Z");
    ed.input("\r");
    expect(lines).toEqual(["echoZ x"]);
  });

  it("walks the history with the arrow keys and keeps the draft", () => {
    const { ed, lines } = setup();
    ed.input("one\r");
    ed.input("two\r");
    ed.input("dra");
    ed.input("\x1b[A");
    expect(ed.line).toBe("two");
    ed.input("\x1b[A");
    expect(ed.line).toBe("one");
    ed.input("\x1b[A");
    expect(ed.line).toBe("one");
    ed.input("\x1b[B");
    ed.input("\x1b[B");
    expect(ed.line).toBe("dra");
    ed.input("\x1b[A");
    ed.input("\r");
    expect(lines).toEqual(["one", "two", "two"]);
  });

  it("Ctrl+C interrupts while busy and ignores typing; clears the line otherwise", () => {
    const s = setup();
    s.ed.busy = true;
    s.ed.input("abc");
    s.ed.input("\x03");
    expect(s.interrupts()).toBe(1);
    expect(s.ed.line).toBe("");
    s.ed.busy = false;
    s.ed.input("xyz\x03");
    expect(s.interrupts()).toBe(1);
    expect(s.ed.line).toBe("");
    expect(s.screen()).toContain("^C");
  });

  it("enters each full line of a multi-line paste", () => {
    const { ed, lines } = setup();
    ed.input("a=1\nb=2\nc");
    expect(lines).toEqual(["a=1", "b=2"]);
    expect(ed.line).toBe("c");
  });
});

describe("LineEditor on a narrow console (wrapped lines)", () => {
  function narrow(cols: number) {
    let screen = "";
    const ed = new LineEditor({ write: (d) => (screen += d), line: () => {}, interrupt: () => {} }, "$ ", () => cols);
    return { ed, take: () => ((s) => ((screen = ""), s))(screen) };
  }

  it("redraws a wrapped line from its first row: up as many rows as the cursor is below the prompt", () => {
    const { ed, take } = narrow(10);
    ed.input("a".repeat(25)); // "$ " + 25 = 27 cells: rows 0..2
    take();
    ed.input("b"); // cursor was at cell 27 (row 2): up 2, clear to the end of the screen
    expect(take().startsWith("\x1b[2A\r\x1b[J")).toBe(true);
  });

  it("moves the cursor across rows with the arrow keys and Home", () => {
    const { ed, take } = narrow(10);
    ed.input("x".repeat(10)); // cells 0..11, cursor at 12 (row 1, col 2)
    take();
    ed.input("\x1b[D"); // 11: row 1 col 1
    expect(take()).toBe("\r\x1b[1C");
    ed.input("\x1b[D"); // 10: row 1 col 0
    ed.input("\x1b[D"); // 9: row 0 col 9
    expect(take()).toBe("\r\x1b[1A\r\x1b[9C");
    ed.input("\x1b[C");
    expect(take()).toBe("\x1b[1B\r");
  });

  it("keeps the cursor on the next row at an exact multiple of the width, and goes to the end before Enter", () => {
    const { ed, take } = narrow(10);
    ed.input("y".repeat(8)); // exactly 10 cells
    expect(take().endsWith(" \r\x1b[K")).toBe(true);
    ed.input("\x1b[H"); // Home: cell 2, row 0
    take();
    ed.input("\r");
    // From cell 2 to the end (cell 10: row 1, col 0), then the newline.
    expect(take()).toBe("\x1b[1B\r\r\n");
  });
});
