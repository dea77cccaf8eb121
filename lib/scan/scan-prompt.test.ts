import { describe, expect, it } from "vitest";
import { answerOf, answerTags, episodeMessage, parseAnswer, scanTagSchema, SCAN_FIELD_CHARS, SCAN_MAX_TURNS } from "./scan-prompt";

describe("parseAnswer", () => {
  it("reads yes or no at the start of a reply, markdown allowed, and keeps the rest as evidence", () => {
    expect(parseAnswer("YES. Turn 2 repeats turn 1.")).toEqual({ answer: "yes", reason: "Turn 2 repeats turn 1." });
    expect(parseAnswer("**No** - it inspected the schema first")).toEqual({ answer: "no", reason: "- it inspected the schema first" });
    expect(parseAnswer("Answer: yes\nturn 3")).toEqual({ answer: "yes", reason: "turn 3" });
    expect(parseAnswer("no")).toEqual({ answer: "no", reason: "" });
  });

  it("refuses a reply that does not open with yes or no", () => {
    expect(parseAnswer("It is hard to say; yes and no.")).toBeNull();
    expect(parseAnswer("Yesterday the agent...")).toBeNull();
    expect(parseAnswer("")).toBeNull();
  });
});

describe("answer tags", () => {
  it("names a yes by the tag, a no and an error by a suffix, and reads them back", () => {
    expect(answerTags("gave-up")).toEqual({ yes: "gave-up", no: "gave-up:no", error: "gave-up:error" });
    expect(["gave-up", "gave-up:no", "gave-up:error", "other"].map((t) => answerOf("gave-up", t))).toEqual(["yes", "no", "error", null]);
    // No colon in a scanner's tag, so its answers cannot be mistaken for another's.
    expect(scanTagSchema.safeParse("a:no").success).toBe(false);
    expect(scanTagSchema.safeParse("x".repeat(59)).success).toBe(false);
  });
});

describe("episodeMessage", () => {
  it("puts the question, the task and each turn, cutting long fields and long episodes", () => {
    const turns = Array.from({ length: SCAN_MAX_TURNS + 10 }, (_, i) => ({
      index: i,
      action: `ls ${i}`,
      observation: i === 0 ? "x".repeat(SCAN_FIELD_CHARS * 2) : "ok",
    }));
    const m = episodeMessage("Did it loop?", {
      environment: "bash",
      dataset: "nl2bash",
      taskId: "7",
      query: "count files",
      status: "submitted",
      reward: 0.5,
      turns,
    });
    expect(m.startsWith("Question: Did it loop?\n")).toBe(true);
    expect(m).toContain("Outcome: submitted, reward 0.5");
    expect(m).toContain(`[... ${SCAN_FIELD_CHARS * 2 - SCAN_FIELD_CHARS} characters left out ...]`);
    expect(m).toContain("[... 10 turns left out ...]");
    expect(m).toContain("Turn 1\nAction: ls 0");
    expect(m).toContain(`Action: ls ${SCAN_MAX_TURNS + 9}`);
    expect(m).not.toContain(`Action: ls ${SCAN_MAX_TURNS / 2}\n`);
  });
});
