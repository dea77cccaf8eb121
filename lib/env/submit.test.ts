import { describe, expect, it } from "vitest";
import { parseAction } from "@/lib/agent/parse-action";
import { parseSubmit } from "./submit";

// What each path saw before there was one parser: the playground and branch/recheck
// (lib/live/protocol.ts), the environments (lib/env/sandbox.ts, and sql.ts's own), the model path
// (lib/agent/parse-action.ts) and the replay/tag heuristics disagreed on `submit;`, `SUBMIT` and
// `submit-x`. Now every path gives the same answer.
const CASES: [string, { arg: string } | null][] = [
  ["submit", { arg: "" }],
  ["  submit  reverse_words ", { arg: "reverse_words" }],
  ["submit picoCTF{x y}", { arg: "picoCTF{x y}" }],
  ["submit;", { arg: "" }], // InterCode's SQL human logs submit this way
  ["submit ;", { arg: "" }],
  ["SUBMIT", { arg: "" }],
  ["Submit f", { arg: "f" }],
  ["submitted", null],
  ["submit-x", null],
  ["echo submit", null],
  ["ls\nsubmit", null],
];

describe("parseSubmit", () => {
  it.each(CASES)("%j -> %j", (text, expected) => {
    expect(parseSubmit(text)).toEqual(expected);
  });

  it("the model path reads a submit exactly as the playground does", () => {
    for (const [text, expected] of CASES) {
      const reply = parseAction("```\n" + text.trim() + "\n```");
      if (expected === null) expect(reply.kind, text).not.toBe("submit");
      else expect(reply, text).toEqual(expected.arg ? { kind: "submit", arg: expected.arg } : { kind: "submit" });
    }
  });
});
