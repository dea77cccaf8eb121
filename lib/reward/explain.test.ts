import { describe, expect, it } from "vitest";
import { breakdownParts, SCORING_RULE } from "./explain";

describe("scoring in words", () => {
  it("says what submit scores in every environment", () => {
    expect(SCORING_RULE.bash).toMatch(/files.*last command/);
    expect(SCORING_RULE.sql).toMatch(/last query/);
    expect(SCORING_RULE.python).toMatch(/hidden tests/);
    expect(SCORING_RULE.ctf).toMatch(/flag/);
  });
  it("names each part of a breakdown with its value and meaning", () => {
    const bash = breakdownParts({ kind: "bash", fileChanges: 0.33, fileContents: 0.33, output: 0, missing: [], extra: [], wrong: [] });
    expect(bash.map((p) => `${p.label} ${p.value}`)).toEqual(["file changes 0.33", "file contents 0.33", "output 0.00"]);
    expect(bash.every((p) => p.explain.length > 20)).toBe(true);
    expect(breakdownParts({ kind: "sql", overlap: 0.5, order: null }).map((p) => p.value)).toEqual(["0.50", "n/a"]);
    expect(breakdownParts({ kind: "python", tests: [{ agree: true }, { agree: false }] })[0].value).toBe("1 / 2");
    expect(breakdownParts({ kind: "ctf", match: false })[0].value).toBe("does not match");
  });
});
