import { describe, expect, it } from "vitest";
import { agentEventSchema } from "./agent-event";
import { MODEL_FIELDS_EMPTY, type Turn } from "./turn";

const turn: Turn = {
  index: 2,
  actor: "human",
  source: "console",
  action: "ls",
  observation: "a\n",
  ok: true,
  reward: null,
  durationMs: 3,
  timedOut: false,
  aborted: false,
  startedAt: new Date("2026-12-01T00:00:00Z"),
  ...MODEL_FIELDS_EMPTY,
};

describe("agent event schema", () => {
  it("carries the recorded Turn", () => {
    expect(agentEventSchema.parse({ type: "turn-end", turn })).toEqual({ type: "turn-end", turn });
  });

  it("rejects an event that does not match, naming the field", () => {
    const r = agentEventSchema.safeParse({ type: "action", index: 0, actor: "robot", action: "ls", thought: null });
    expect(r.error?.issues.map((i) => i.path.join("."))).toEqual(["actor"]);
  });
});
