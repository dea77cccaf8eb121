import { describe, expect, it } from "vitest";
import { type BashRewardInput, bashReward } from "./bash";
import { runPython } from "./testing/python-oracle";
import { tfidfCosine } from "./tfidf";

const base: BashRewardInput = {
  agentStatus: "",
  goldStatus: "",
  agentHashes: {},
  goldHashes: {},
  agentObservation: "",
  goldObservation: "",
};

describe("bashReward", () => {
  it("gives 1.0 when nothing changed and the outputs agree", () => {
    const r = bashReward({ ...base, agentObservation: "dir1/a.txt\ndir1/b.txt\n", goldObservation: "dir1/a.txt\ndir1/b.txt\n" });
    expect(r.reward).toBe(1);
    expect(r.breakdown).toEqual({ kind: "bash", fileChanges: 0.33, fileContents: 0.33, output: 0.33, missing: [], extra: [], wrong: [] });
  });

  it("floors at 0.01 + 0.33 + 0.33 for unrelated outputs with no file changes", () => {
    const r = bashReward({ ...base, agentObservation: "hello there", goldObservation: "nothing common" });
    expect(r.breakdown.output).toBe(0);
    expect(r.reward).toBe(0.67);
  });

  it("charges 0.33 × (1 − erf(k)) for paths changed on one side only", () => {
    const one = bashReward({ ...base, goldStatus: "?? backup.tar\n" });
    expect(one.breakdown.fileChanges).toBe(0.05); // 0.33 × (1 − erf 1) = 0.0519…
    expect(one.breakdown.missing).toEqual(["backup.tar"]);
    const two = bashReward({ ...base, goldStatus: "?? a\n", agentStatus: "?? b\n" });
    expect(two.breakdown.fileChanges).toBe(0); // 0.33 × (1 − erf 2) = 0.0015…
    expect(two.breakdown.extra).toEqual(["b"]);
  });

  it("treats the same path with different status codes as a mismatch on both sides", () => {
    const r = bashReward({ ...base, agentStatus: " M notes.txt", goldStatus: " D notes.txt" });
    expect(r.breakdown.missing).toEqual(["notes.txt"]);
    expect(r.breakdown.extra).toEqual(["notes.txt"]);
    expect(r.breakdown.fileChanges).toBe(0);
  });

  it("compares md5 only for paths both added (??, A, C), partially right earns a share", () => {
    const status = "?? out/\n?? copy.txt\n?? list.txt\n M edited.txt\n";
    const r = bashReward({
      ...base,
      agentStatus: status,
      goldStatus: status,
      agentHashes: { out: "aaa", "copy.txt": "bbb", "list.txt": "ccc", "edited.txt": "x" },
      goldHashes: { "out/": "aaa", "copy.txt": "bbb", "list.txt": "zzz", "edited.txt": "y" },
    });
    // 2 of 3 hashed paths agree; edited.txt (" M") is not hashed, as in InterCode.
    expect(r.breakdown.fileContents).toBe(0.22);
    expect(r.breakdown.wrong).toEqual(["list.txt"]);
    expect(r.breakdown.fileChanges).toBe(0.33);
    expect(r.reward).toBe(0.89);
  });

  it("takes parsed entries as well as text", () => {
    const r = bashReward({ ...base, agentStatus: [{ code: "??", path: "a" }], goldStatus: "?? a\n", agentHashes: { a: "1" }, goldHashes: { a: "1" } });
    expect(r.reward).toBe(1);
  });

  it("falls back to equality when an observation is missing", () => {
    expect(bashReward({ ...base, agentObservation: null, goldObservation: null }).breakdown.output).toBe(0.33);
    expect(bashReward({ ...base, agentObservation: null, goldObservation: "x" }).breakdown.output).toBe(0);
    expect(bashReward({ ...base, agentObservation: "-", goldObservation: "-" }).breakdown.output).toBe(0.33);
    expect(bashReward({ ...base, agentObservation: "-", goldObservation: "+" }).breakdown.output).toBe(0);
  });

  it("keeps InterCode's unrounded float sum in raw, and equals Python's arithmetic digit for digit", () => {
    const cases: BashRewardInput[] = [];
    const outputs = ["total 8\ndir1\ndir2", "dir1 dir2 dir3", "No such file or directory", "", "file.txt file.txt other.txt", "42"];
    const statuses = ["", "?? a.txt", "?? a.txt\n?? b/", " M c.txt\n?? a.txt", " D c.txt"];
    for (const ao of outputs)
      for (const go of outputs)
        for (const as of statuses)
          for (const gs of statuses) {
            cases.push({
              agentStatus: as,
              goldStatus: gs,
              agentHashes: { "a.txt": "1", b: "2" },
              goldHashes: { "a.txt": as === gs ? "1" : "9", b: "2" },
              agentObservation: ao,
              goldObservation: go,
            });
          }
    const ours = cases.map((c) => bashReward(c));
    // Python recomputes InterCode's formula from the same sets and the same similarity.
    const py = runPython<{ raw: number; rounded: number }[]>(
      [
        "result = []",
        "for c in data:",
        "    a = set(map(tuple, c['agent'])); g = set(map(tuple, c['gold']))",
        "    r = 0.01",
        "    r += round(0.33 * (1 - math.erf(len(g - a) + len(a - g))), 2)",
        "    same = [x for x in a & g if x[1] in ['A', '??', 'C']]",
        "    r += round(0.33 * (sum(1 for x in same if c['ah'].get(x[0].rstrip('/')) == c['gh'].get(x[0].rstrip('/'))) / len(same)), 2) if same else 0.33",
        "    r += round(0.33 * c['sim'], 2)",
        "    result.append({'raw': r, 'rounded': round(r, 2)})",
      ].join("\n"),
      cases.map((c) => ({
        agent: (c.agentStatus as string)
          .split("\n")
          .filter(Boolean)
          .map((l) => [l.slice(3), l.slice(0, 2).trim()]),
        gold: (c.goldStatus as string)
          .split("\n")
          .filter(Boolean)
          .map((l) => [l.slice(3), l.slice(0, 2).trim()]),
        ah: c.agentHashes,
        gh: c.goldHashes,
        sim: tfidfCosine(c.agentObservation ?? "", c.goldObservation ?? ""),
      })),
    );
    expect(ours.map((r) => r.raw)).toEqual(py.map((p) => p.raw));
    expect(ours.map((r) => r.reward)).toEqual(py.map((p) => p.rounded));
    expect(new Set(ours.map((r) => r.reward)).size).toBeGreaterThan(5);
  });
});
