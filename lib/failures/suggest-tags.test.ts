import { describe, expect, it } from "vitest";
import { DETECTORS } from "@/lib/failures/detectors";
import { BASE_TAXONOMY, suggestTags, suggestTagsOnPage, type TurnForTags } from "@/lib/failures/suggest-tags";
import { detectorTagsOf } from "@/lib/failures/machine-tags";

const t = (index: number, action: string, observation: string, extra: Partial<TurnForTags> = {}): TurnForTags => ({
  index,
  action,
  observation,
  ok: true,
  reward: null,
  ...extra,
});

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
      "repeated-error@2",
      "timeout@3",
      "wrong-answer@4",
      "submit-without-success@4",
    ]);
  });
  it("tags SQL errors and missing tables with the detectors' hits, and a solved episode gets no wrong-answer", () => {
    const s = suggestTags({
      environment: "sql",
      status: "submitted",
      reward: 1,
      success: true,
      turns: [
        t(0, "select * from x", "Error 1146: Table 'db.x' doesn't exist", { ok: false }),
        t(1, "selct 1", "You have an error in your SQL syntax", { ok: false }),
        t(2, "submit", "", { reward: 1 }),
      ],
    });
    expect(s.map((x) => `${x.tag}@${x.turnIndex}`)).toEqual(["no-such-table@0", "sql-schema-not-inspected@0", "query-error@1", "submit-without-success@2"]);
  });
  it("speaks each environment's words, one error tag a turn", () => {
    const missing = "Error executing query: no such table: flights";
    const sql = suggestTags({
      environment: "sql",
      status: "submitted",
      reward: 0,
      success: false,
      turns: [
        t(0, "select * from flights", missing, { ok: false }),
        t(1, "select * from flights", missing, { ok: false }),
        t(2, "submit", missing, { reward: 0 }),
      ],
    });
    expect(sql.map((x) => `${x.tag}@${x.turnIndex}`)).toEqual([
      "no-such-table@0",
      "sql-schema-not-inspected@0",
      "no-such-table@1",
      "repeated-action@1",
      "repeated-error@1",
      "wrong-answer@2",
      "submit-without-success@2",
    ]);
    expect(sql.some((x) => x.tag === "no-such-file")).toBe(false);
    // InterCode's SQL logs: "submit;" run as a query is an error of its own.
    const logged = suggestTags({
      environment: "sql",
      status: "submitted",
      reward: 0,
      success: false,
      turns: [t(0, "select name from t", "(1,)"), t(1, "submit;", "Error executing query: You have an error in your SQL syntax", { ok: false })],
    });
    expect(logged.map((x) => `${x.tag}@${x.turnIndex}`)).toEqual(["query-error@1", "wrong-answer@1"]);
    const mysql = suggestTags({
      environment: "sql",
      status: "running",
      reward: null,
      success: false,
      turns: [t(0, "select x from t", "Error executing query: 1054 (42S22): Unknown column 'x' in 'field list'", { ok: false })],
    });
    expect(mysql.map((x) => x.tag)).toEqual(["no-such-column"]);
    const py = suggestTags({
      environment: "python",
      status: "running",
      reward: null,
      success: false,
      turns: [
        t(0, "print(y)", "Traceback (most recent call last):\n  File \"<stdin>\", line 1\nNameError: name 'y' is not defined", { ok: false }),
        t(1, "1/0", "ZeroDivisionError: division by zero", { ok: false }),
      ],
    });
    expect(py.map((x) => `${x.tag}@${x.turnIndex}`)).toEqual(["name-error@0", "exception@1"]);
    const bash = suggestTags({
      environment: "bash",
      status: "running",
      reward: null,
      success: false,
      turns: [t(0, "cat x", "cat: x: No such file or directory", { ok: false })],
    });
    expect(bash.map((x) => x.tag)).toEqual(["no-such-file"]);
  });
  it("gives up early where the detector says so: abandoned or submitted with turns left, under the full reward", () => {
    const abandoned = suggestTags({ environment: "sql", status: "abandoned", reward: null, success: false, turnLimit: 10, turns: [t(0, "skip", "")] });
    expect(abandoned.map((x) => `${x.tag}@${x.turnIndex}`)).toEqual(["gave-up-early@0"]);
    expect(abandoned[0].reason).toBe("abandoned after 1 of 10 turns with reward 0");
    expect(
      suggestTags({ environment: "sql", status: "abandoned", reward: null, success: false, turnLimit: 10, turns: [] }).map((x) => `${x.tag}@${x.turnIndex}`),
    ).toEqual(["gave-up-early@null"]);
    // Without a turn limit the detector cannot say turns were left.
    expect(suggestTags({ environment: "sql", status: "abandoned", reward: null, success: false, turns: [t(0, "skip", "")] })).toEqual([]);
    expect(
      suggestTags({ environment: "sql", status: "submitted", reward: 1, success: true, turnLimit: 10, turns: [t(0, "select name from singer", "(1,)")] }),
    ).toEqual([]);
  });
  it("the taxonomy names every detector with its definition", () => {
    for (const d of DETECTORS) expect(BASE_TAXONOMY).toContainEqual({ tag: d.name, description: d.definition });
  });
});

describe("suggestTagsOnPage", () => {
  // Ten turns: errors, repeats of one error and an action, a timeout, a wrong submit at the end.
  const ep = {
    environment: "bash",
    status: "submitted",
    reward: 0.33,
    success: false,
    turnLimit: 20,
    query: "q",
    turns: Array.from({ length: 10 }, (_, k) =>
      k === 9
        ? t(9, "submit", "", { reward: 0.33 })
        : k === 6
          ? t(6, "sleep 100", "", { timedOut: true, ok: false })
          : k % 2
            ? t(k, "cat nofile", "cat: nofile: No such file or directory", { ok: false })
            : t(k, `ls d${k}`, `d${k}`),
    ),
  };
  const whole = suggestTags(ep);
  // What the store holds of the detectors (written at import and at episode end), as the header hands it out.
  const stored = detectorTagsOf(ep).map((d) => ({ ...d, source: "detector", kind: "tag" }));

  it("gives, page by page, what suggestTags gives over the whole episode, reading the detectors' hits from their stored tags", () => {
    const pages = [0, 4, 8].flatMap((from) =>
      suggestTagsOnPage({ episode: ep, turns: ep.turns.slice(from, from + 4), before: ep.turns[from - 1] ?? null, lastIndex: 9, stored }),
    );
    const key = (x: { tag: string; turnIndex: number | null }) => `${x.tag}@${x.turnIndex}`;
    expect([...new Set(pages.map(key))].sort()).toEqual(whole.map(key).sort());
    expect(whole.some((x) => x.tag === "repeated-error" && x.turnIndex === 5)).toBe(true);
  });
  it("holds only the page's turns and the episode's own suggestions", () => {
    const page = suggestTagsOnPage({ episode: ep, turns: ep.turns.slice(4, 8), before: ep.turns[3], lastIndex: 9, stored });
    expect(page.every((x) => x.turnIndex === null || (x.turnIndex >= 4 && x.turnIndex < 8))).toBe(true);
    expect(page.map((x) => `${x.tag}@${x.turnIndex}`)).toContain("timeout@6");
    expect(page.map((x) => `${x.tag}@${x.turnIndex}`)).not.toContain("wrong-answer@9");
  });
});
