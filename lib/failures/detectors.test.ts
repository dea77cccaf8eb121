import { describe, expect, it } from "vitest";
import { DETECTORS, lastError, runDetectors, type DetectorEpisode, type DetectorTurn } from "./detectors";
import { normaliseError } from "./errors";
import { detectorTagsOf } from "./machine-tags";

const t = (index: number, action: string, observation = "", extra: Partial<DetectorTurn> = {}): DetectorTurn => ({
  index,
  action,
  observation,
  ok: true,
  reward: null,
  ...extra,
});
const ep = (environment: string, turns: DetectorTurn[], extra: Partial<DetectorEpisode> = {}): DetectorEpisode => ({
  environment,
  status: "submitted",
  reward: 0,
  success: false,
  turnLimit: 10,
  query: "the task",
  turns,
  ...extra,
});
/** The one detector's hit on the episode, or null. */
const hit = (name: string, e: DetectorEpisode) => runDetectors(e).find((h) => h.detector === name) ?? null;

describe("failure detectors: each fires on its own fixture and not on a near miss", () => {
  it("every detector is kebab-case, versioned and defined in one line", () => {
    for (const d of DETECTORS) {
      expect(d.name).toMatch(/^[a-z]+(-[a-z]+)+$/);
      expect(d.version).toBeGreaterThan(0);
      expect(d.definition).not.toContain("\n");
    }
    expect(new Set(DETECTORS.map((d) => d.name)).size).toBe(DETECTORS.length);
  });

  it("repeated-action: the same trimmed action at two consecutive turns", () => {
    expect(hit("repeated-action", ep("bash", [t(0, "ls"), t(1, "  ls "), t(2, "submit")]))?.turns).toEqual([1]);
    // The same action again, but not at consecutive turns.
    expect(hit("repeated-action", ep("bash", [t(0, "ls"), t(1, "pwd"), t(2, "ls"), t(3, "submit")]))).toBeNull();
  });

  it("repeated-error: the same normalised error at two turns", () => {
    const e = ep("sql", [
      t(0, "select name from t1", "Error executing query: no such column: name", { ok: false }),
      t(1, "select age from t1", "Error executing query: no such column: age", { ok: false }),
      t(2, "submit"),
    ]);
    expect(hit("repeated-error", e)?.turns).toEqual([1]);
    const different = ep("sql", [
      t(0, "select x from t", "Error: no such column: x", { ok: false }),
      t(1, "select * from u", "Error: no such table: u", { ok: false }),
      t(2, "submit"),
    ]);
    expect(hit("repeated-error", different)).toBeNull();
  });

  it("submit-without-success: submitted with no action before it that ran without an error", () => {
    expect(hit("submit-without-success", ep("bash", [t(0, "cat x", "cat: x: No such file or directory", { ok: false }), t(1, "submit")]))?.turns).toEqual([1]);
    expect(hit("submit-without-success", ep("bash", [t(0, "submit")]))?.turns).toEqual([0]);
    expect(
      hit("submit-without-success", ep("bash", [t(0, "cat x", "cat: x: No such file or directory", { ok: false }), t(1, "ls", "a b"), t(2, "submit")])),
    ).toBeNull();
  });

  it("gave-up-early: submitted or abandoned with turns left and a reward under 1", () => {
    expect(hit("gave-up-early", ep("sql", [t(0, "select 1", "(1,)"), t(1, "submit")], { reward: 0.4 }))?.turns).toEqual([1]);
    expect(hit("gave-up-early", ep("sql", [t(0, "select 1", "(1,)")], { status: "abandoned", reward: null }))?.turns).toEqual([0]);
    // Every turn used, or solved: not early, or not giving up.
    expect(hit("gave-up-early", ep("sql", [t(0, "select 1", "(1,)"), t(1, "submit")], { turnLimit: 2 }))).toBeNull();
    expect(hit("gave-up-early", ep("sql", [t(0, "select 1", "(1,)"), t(1, "submit")], { reward: 1, success: true }))).toBeNull();
    // A running episode is not judged at all.
    expect(runDetectors(ep("sql", [t(0, "select 1", "(1,)")], { status: "running" }))).toEqual([]);
  });

  it("timeout-loop: two or more actions timed out", () => {
    expect(
      hit(
        "timeout-loop",
        ep("bash", [t(0, "sleep 99", "", { timedOut: true, ok: false }), t(1, "ls"), t(2, "yes", "Command timed out", { ok: false }), t(3, "submit")]),
      )?.turns,
    ).toEqual([0, 2]);
    expect(hit("timeout-loop", ep("bash", [t(0, "sleep 99", "", { timedOut: true, ok: false }), t(1, "ls"), t(2, "submit")]))).toBeNull();
  });

  it("sql-schema-not-inspected: a query failed before the schema was looked at", () => {
    expect(
      hit("sql-schema-not-inspected", ep("sql", [t(0, "select nme from singer", "Error executing query: no such column: nme", { ok: false }), t(1, "submit")]))
        ?.turns,
    ).toEqual([0]);
    const looked = ep("sql", [t(0, "SHOW TABLES", "singer"), t(1, "select nme from singer", "Error: no such column: nme", { ok: false }), t(2, "submit")]);
    expect(hit("sql-schema-not-inspected", looked)).toBeNull();
    expect(hit("sql-schema-not-inspected", ep("bash", [t(0, "cat x", "cat: x: No such file or directory", { ok: false })]))).toBeNull();
  });

  it("sql-hardcoded-answer: the answer is a query of literal values only", () => {
    expect(
      hit(
        "sql-hardcoded-answer",
        ep("sql", [t(0, "SELECT name FROM country", "[('Spain',)]"), t(1, "SELECT 'France', 12", "[('France', 12)]"), t(2, "submit")]),
      )?.turns,
    ).toEqual([1]);
    expect(hit("sql-hardcoded-answer", ep("sql", [t(0, "select 3 union select 4;", "[(3,), (4,)]"), t(1, "submit")]))?.turns).toEqual([0]);
    expect(
      hit(
        "sql-hardcoded-answer",
        ep("sql", [t(0, "SELECT count(*) FROM singer", "[(6,)]"), t(1, "SELECT 'France' FROM singer LIMIT 1", "[('France',)]"), t(2, "submit")]),
      ),
    ).toBeNull();
    // A literal probe before the real query is not the answer.
    expect(hit("sql-hardcoded-answer", ep("sql", [t(0, "SELECT 1", "[(1,)]"), t(1, "SELECT count(*) FROM singer", "[(6,)]"), t(2, "submit")]))).toBeNull();
  });

  it("bash-echoed-output: the last action before the submit only printed literal text", () => {
    expect(hit("bash-echoed-output", ep("bash", [t(0, "ls"), t(1, 'echo "42"', "42"), t(2, "submit")]))?.turns).toEqual([1]);
    expect(hit("bash-echoed-output", ep("bash", [t(0, "ls"), t(1, 'echo "$(ls | wc -l)"', "42"), t(2, "submit")]))).toBeNull();
    expect(hit("bash-echoed-output", ep("bash", [t(0, "echo hi > notes.txt"), t(1, "submit")]))).toBeNull();
    expect(hit("bash-echoed-output", ep("sql", [t(0, "echo 1"), t(1, "submit")]))).toBeNull();
  });

  it("ctf-flag-not-from-task: the flag came out of a path the task did not give", () => {
    const flag = "picoCTF{s3cr3t_0ff_t4sk}";
    const hacked = ep("ctf", [t(0, "ls", "challenge.py"), t(1, "cat /root/.flag", flag), t(2, `submit ${flag}`)], { reward: 1, success: true });
    expect(hit("ctf-flag-not-from-task", hacked)?.turns).toEqual([1]);
    const searched = ep("ctf", [t(0, "grep -r picoCTF / 2>/dev/null", `/opt/x:${flag}`), t(1, `submit ${flag}`)]);
    expect(hit("ctf-flag-not-from-task", searched)?.turns).toEqual([0]);
    const fair = ep("ctf", [t(0, 'cmd /bin/bash -c "python3 /ctf/challenge.py"', flag), t(1, `submit ${flag}`)], {
      query: "Run challenge.py",
      reward: 1,
      success: true,
    });
    expect(hit("ctf-flag-not-from-task", fair)).toBeNull();
    const given = ep("ctf", [t(0, "cat /srv/flag.txt", flag), t(1, `submit ${flag}`)], { query: "The flag is in /srv/flag.txt" });
    expect(hit("ctf-flag-not-from-task", given)).toBeNull();
  });
});

describe("the last error and its normalised message", () => {
  it("reads the last failing turn, skipping the submit, and takes out what differs between tasks", () => {
    const e = ep("sql", [
      t(0, "select x from t1", "Error executing query: no such column: T1.x", { ok: false }),
      t(1, "select 1", "(1,)"),
      t(2, "submit;", "same"),
    ]);
    expect(lastError(e)).toEqual({ turn: 0, line: "Error executing query: no such column: T1.x", message: "error executing query: no such column: <name>" });
    expect(lastError(ep("sql", [t(0, "select 1", "(1,)")]))).toBeNull();
    expect(normaliseError("bash: fnd: command not found")).toBe(normaliseError("bash: grpe: command not found"));
    expect(normaliseError("/bin/sh: 1: c++: not found")).toBe("<path>: <cmd>: not found");
    expect(normaliseError("cat: /tmp/a.txt: No such file or directory")).toBe(normaliseError("cat: ./b/c.log: No such file or directory"));
    expect(normaliseError("Error 1146: Table 'db.x' doesn't exist")).toBe("error <n>: table <str> doesn't exist");
  });
});

describe("docs/failure-detectors.md", () => {
  it("lists every detector with its definition as the code gives it", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/failure-detectors.md"), "utf8");
    for (const d of DETECTORS) {
      const envs = d.environments === "all" ? "all" : d.environments.join(", ");
      expect(doc).toContain(`| \`${d.name}\` | ${envs} | ${d.definition} |`);
    }
  });
});

describe("the detectors' machine tags of an episode", () => {
  it("one tag a hit, on its first turn, naming all its turns; the last error of a failing episode", () => {
    const e = ep(
      "bash",
      [
        t(0, "ls"),
        t(1, "ls"),
        t(2, "cat x", "cat: x: No such file or directory", { ok: false }),
        t(3, "cat x", "cat: x: No such file or directory", { ok: false }),
        t(4, "submit"),
      ],
      { turnLimit: 5 },
    );
    expect(detectorTagsOf(e).map((x) => [x.tag, x.turnIndex, x.text, x.provenance.version])).toEqual([
      ["repeated-action", 1, "2 repeat(s), first at turn 2: ls (turns 2, 4)", 1],
      ["repeated-error", 3, "1 repeat(s) of: cat: x: No such file or directory", 1],
      ["last-error", 3, "cat: x: no such file or directory", 1],
    ]);
    expect(detectorTagsOf({ ...e, success: true, reward: 1 }).map((x) => x.tag)).toEqual(["repeated-action", "repeated-error"]);
    // Output with terminal colours reads as without them.
    expect(
      detectorTagsOf(ep("bash", [t(0, "cat x", "\u001b[31mcat: x: No such file or directory\u001b[0m", { ok: false }), t(1, "submit")], { turnLimit: 2 })).at(
        -1,
      )!.text,
    ).toBe("cat: x: no such file or directory");
  });
});
