import { describe, expect, it } from "vitest";
import { agentEventSchema, loggedEventViewSchema } from "./agent-event";
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
  it("carries the recorded Turn in the server and the agent view's pick of it on the wire", () => {
    expect(agentEventSchema.parse({ type: "turn-end", turn })).toEqual({ type: "turn-end", turn });
    const wire = loggedEventViewSchema.parse(JSON.parse(JSON.stringify({ seq: 4, event: { type: "turn-end", turn } })));
    expect(wire.event.type === "turn-end" && wire.event.turn).toEqual({
      index: 2,
      actor: "human",
      source: "console",
      action: "ls",
      observation: "a\n",
      ok: true,
      reward: null,
      thought: null,
      tokensIn: null,
      tokensOut: null,
      latencyMs: null,
      costUsd: null,
    });
  });

  it("rejects an event that does not match, naming the field", () => {
    const r = agentEventSchema.safeParse({ type: "action", index: 0, actor: "robot", action: "ls", thought: null });
    expect(r.error?.issues.map((i) => i.path.join("."))).toEqual(["actor"]);
    expect(loggedEventViewSchema.safeParse({ seq: 0, event: { type: "mode", mode: "asleep" } }).success).toBe(false);
    expect(loggedEventViewSchema.safeParse({ seq: 0, event: { type: "mode", mode: "paused" } }).success).toBe(true);
  });
});
