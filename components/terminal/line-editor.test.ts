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
