import { describe, expect, it } from "vitest";
import { suggestTags, type TurnForTags } from "./suggest-tags";

const t = (index: number, action: string, observation: string, extra: Partial<TurnForTags> = {}): TurnForTags => ({ index, action, observation, ok: true, reward: null, ...extra });

describe("suggestTags", () => {
  it("reads failures from the turns", () => {
    const s = suggestTags({
      environment: "bash",
      status: "submitted",
      reward: 0.33,
      success: false,
      turns: [
        t(0, "fnd . -name x", "bash: fnd: command not found", { ok: false }),
        t(1, "cat nofile", "cat: nofile: No such file or directory", { ok: false }),
        t(2, "cat nofile", "cat: nofile: No such file or directory", { ok: false }),
        t(3, "sleep 100", "", { timedOut: true, ok: false }),
        t(4, "submit", "", { reward: 0.33 }),
      ],
    });
    expect(s.map((x) => `${x.tag}@${x.turnIndex}`)).toEqual([
      "command-not-found@0",
      "no-such-file@1",
      "no-such-file@2",
      "repeated-action@2",
      "timeout@3",
      "wrong-answer@4",
    ]);
  });
  it("tags SQL errors and missing tables, and a solved episode gets no wrong-answer", () => {
    const s = suggestTags({
      environment: "sql",
      status: "submitted",
      reward: 1,
      success: true,
      turns: [t(0, "select * from x", "Error 1146: Table 'db.x' doesn't exist", { ok: false }), t(1, "selct 1", "You have an error in your SQL syntax", { ok: false }), t(2, "submit", "", { reward: 1 })],
    });
    expect(s.map((x) => x.tag).sort()).toEqual(["no-such-file", "query-error", "query-error"].sort());
  });
  it("says gave-up for an abandoned episode and for skip", () => {
    expect(suggestTags({ environment: "sql", status: "abandoned", reward: null, success: false, turns: [t(0, "skip", "")] }).map((x) => x.tag)).toEqual(["gave-up", "gave-up"]);
    expect(suggestTags({ environment: "sql", status: "submitted", reward: 1, success: true, turns: [t(0, "select 1", "(1,)")] })).toEqual([]);
  });
});
