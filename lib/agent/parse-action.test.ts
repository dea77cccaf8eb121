import { describe, expect, it } from "vitest";
import { parseAction, parseLoggedAction } from "./parse-action";

describe("parseAction", () => {
  it("takes the first fenced block, and the text before it as the thought", () => {
    const r = parseAction("I will count.\n```sql\nSELECT count(*) FROM singer;\n```\nthen\n```sql\nSELECT 2\n```");
    expect(r).toEqual({ kind: "action", action: "SELECT count(*) FROM singer;", thought: "I will count." });
  });

  it("reads an inline action line and a fenced block after the label", () => {
    expect(parseAction("Thought: list files\nAction: ls -la /testbed", { actionLabel: "Action", thoughtLabel: "Thought" })).toEqual({
      kind: "action",
      action: "ls -la /testbed",
      thought: "list files",
    });
    expect(parseAction("Thought: t\nAction:\n```bash\nfind . -name '*.txt'\n```", { actionLabel: "Action", thoughtLabel: "Thought" })).toEqual({
      kind: "action",
      action: "find . -name '*.txt'",
      thought: "t",
    });
    expect(parseAction("**Action:** `pwd`", { actionLabel: "Action" })).toMatchObject({ kind: "action", action: "pwd" });
  });

  it("uses the last action line", () => {
    const r = parseAction("Format is Action: <cmd>\nThought: go\nAction: echo hi", { actionLabel: "Action" });
    expect(r).toMatchObject({ kind: "action", action: "echo hi" });
  });

  it("recognises submit with and without an argument, and skip", () => {
    expect(parseAction("```\nsubmit\n```")).toEqual({ kind: "submit" });
    expect(parseAction("Action: submit picoCTF{x_y}", { actionLabel: "Action" })).toMatchObject({ kind: "submit", arg: "picoCTF{x_y}" });
    expect(parseAction("submit")).toEqual({ kind: "submit" });
    expect(parseAction("SKIP")).toEqual({ kind: "skip" });
    expect(parseAction("```bash\nsubmitted_files=1\n```")).toMatchObject({ kind: "action", action: "submitted_files=1" });
  });

  it("reports a reply with no usable action, with a reason for the model", () => {
    const r = parseAction("I think the answer is probably the singers table.", { fenceLanguage: "sql" });
    expect(r.kind).toBe("invalid");
    if (r.kind === "invalid") expect(r.reason).toMatch(/no action found.*```sql/);
    expect(parseAction("   ")).toMatchObject({ kind: "invalid", reason: "your reply was empty" });
    expect(parseAction("```sql\n\n```")).toMatchObject({ kind: "invalid", reason: "the action was empty" });
    expect(parseAction("Action:", { actionLabel: "Action" })).toMatchObject({ kind: "invalid" });
  });
});

describe("parseLoggedAction", () => {
  it("unwraps ReAct's execute[...] and CTF's cmd, and reads submit and blocked", () => {
    const react = { executeBrackets: true };
    expect(parseLoggedAction("execute[SELECT count(*) FROM singer]", react)).toEqual({ kind: "run", code: "SELECT count(*) FROM singer" });
    expect(parseLoggedAction("execute[SELECT a[1] FROM t\nWHERE x = 1]", react)).toEqual({ kind: "run", code: "SELECT a[1] FROM t\nWHERE x = 1" });
    expect(parseLoggedAction("submit", react)).toEqual({ kind: "submit", arg: "" });
    expect(parseLoggedAction("blocked", react)).toEqual({ kind: "blocked" });
    // Without the format (a Try Again log), the text runs as written.
    expect(parseLoggedAction("execute[ls]")).toEqual({ kind: "run", code: "execute[ls]" });
    const ctf = { cmdWrapper: true };
    expect(parseLoggedAction('cmd /bin/bash -c "cat flag.txt"', ctf)).toEqual({ kind: "run", code: '/bin/bash -c "cat flag.txt"' });
    expect(parseLoggedAction("submit picoCTF{x_y}", ctf)).toEqual({ kind: "submit", arg: "picoCTF{x_y}" });
    expect(parseLoggedAction("cmd submit picoCTF{x}", ctf)).toEqual({ kind: "submit", arg: "picoCTF{x}" });
  });

  it("reads a ReAct reply in InterCode's format when asked (profile intercode)", () => {
    const opts = { actionLabel: "Action", thoughtLabel: "Thought", executeBrackets: true };
    expect(parseAction("Thought: count them\nAction: execute[SELECT count(*) FROM singer]", opts)).toEqual({
      kind: "action",
      action: "SELECT count(*) FROM singer",
      thought: "count them",
      written: "execute[SELECT count(*) FROM singer]",
    });
    expect(parseAction("Thought: done\nAction: submit", opts)).toEqual({ kind: "submit", thought: "done" });
    expect(parseAction("Action: execute[ls]", { actionLabel: "Action" })).toMatchObject({ kind: "action", action: "execute[ls]" });
  });

  it("takes a bare `cmd ...` line as the action when the prefix is asked for (InterCode CTF), a fence still first", () => {
    const opts = { fenceLanguage: "bash", barePrefix: "cmd" };
    expect(parseAction("It looks like base64.\ncmd base64 -d note.txt", opts)).toEqual({
      kind: "action",
      action: "cmd base64 -d note.txt",
      thought: "It looks like base64.",
    });
    expect(parseAction("```bash\ncmd ls\n```\ncmd cat x", opts)).toMatchObject({ kind: "action", action: "cmd ls" });
    expect(parseAction("cmd", opts)).toMatchObject({ kind: "invalid" });
    expect(parseAction("cmd ls", { fenceLanguage: "bash" })).toMatchObject({ kind: "invalid" });
  });
});
