import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { intercodeArgv, intercodeCd, intercodeHashCommand, intercodeStatusEntries, shlexSplit, ShlexError, simplifyPath } from "./intercode-exec";

/** Python's own answer for each string: the words, or the error's message. */
function pythonSplit(inputs: string[]): (string[] | { error: string })[] {
  const script = `
import json, shlex, sys
out = []
for s in json.load(sys.stdin):
    try:
        out.append(shlex.split(s))
    except ValueError as e:
        out.append({"error": str(e)})
print(json.dumps(out))
`;
  return JSON.parse(execFileSync("python3", ["-c", script], { input: JSON.stringify(inputs), encoding: "utf8" }));
}

function ours(s: string): string[] | { error: string } {
  try {
    return shlexSplit(s);
  } catch (err) {
    if (err instanceof ShlexError) return { error: err.message };
    throw err;
  }
}

const TRICKY = [
  `/bin/bash -c "echo "a b" c"`,
  `/bin/bash -c "echo "it's""`,
  `/bin/bash -c "grep -r "bind.*p" /usr/include | awk -F: '{print $1}'"`,
  `a\\ b 'c d'"e f" g\\"h`,
  `"a\\"b" 'a\\'b`,
  `"back\\\\slash\\n" x\\`,
  `'' "" x`,
  `  lead   trail  `,
  "tab\there\nnewline",
  `"unterminated`,
  `mixed'quo"te'`,
];

describe("shlexSplit", () => {
  it("splits as Python's shlex.split does, errors included, over every action of the sample logs and hand-picked cases", () => {
    const actions: string[] = [];
    for (const rel of ["results-sample/bash/ic_bash_multiturn_gpt-4_10_turns_fs_4.json", "results-sample/ctf/ic_ctf_gpt-4_25_turns.json"]) {
      const log = JSON.parse(readFileSync(path.join(sharedIntercodeDir(), rel), "utf8")) as Record<string, { turn_history: { actions: string[] } }>;
      for (const ep of Object.values(log)) for (const a of ep.turn_history.actions) actions.push(`/bin/bash -c "${a.trim()}"`, a);
    }
    const inputs = [...TRICKY, ...actions];
    const expected = pythonSplit(inputs);
    const got = inputs.map(ours);
    const diffs = inputs.map((s, i) => ({ s, want: expected[i], got: got[i] })).filter((d) => JSON.stringify(d.want) !== JSON.stringify(d.got));
    expect(diffs).toEqual([]);
    // The cases the log shows: a quote cuts the command, an apostrophe leaves a quote open.
    expect(intercodeArgv(`echo "If you have any more questions"`)).toEqual(["/bin/bash", "-c", "echo If", "you", "have", "any", "more", "questions"]);
    expect(() => intercodeArgv(`echo "I'm here to help"`)).toThrow("No closing quotation");
  });
});

describe("InterCode's cd, status and hash rules", () => {
  it("resolves cd as a string and runs it from /", () => {
    expect(simplifyPath("/testbed", "dir1/../dir2/./sub")).toBe("/testbed/dir2/sub");
    expect(simplifyPath("/testbed", "/system/..")).toBe("/");
    expect(simplifyPath("/a", "")).toBe("/a");
    expect(intercodeCd("cd dir1", "/testbed")).toEqual({ command: "cd /testbed/dir1", target: "/testbed/dir1" });
    expect(intercodeCd("ls", "/")).toBeNull();
    expect(intercodeCd("cd", "/")).toBeNull();
  });

  it("reads git status by splitting on white space, so a quoted path with a space falls apart", () => {
    expect(intercodeStatusEntries(" M testbed/a.txt\n?? dir/\n")).toEqual([
      { code: "M", path: "testbed/a.txt" },
      { code: "??", path: "dir/" },
    ]);
    expect(intercodeStatusEntries(`?? "system/special text3.txt"\n D x.txt\n`)).toEqual([
      { code: "??", path: `"system/special` },
      { code: `text3.txt"`, path: "D" },
    ]);
    expect(intercodeHashCommand("testbed/a.txt")).toBe("md5sum testbed/a.txt");
    expect(intercodeHashCommand("testbed/dir/")).toBe("md5deep -r testbed/dir/");
  });
});
