import { describe, expect, it } from "vitest";
import { agentEventSchema } from "./agent-event";
import { SAMPLE_TURN as turn } from "@/lib/testing/turns";

describe("agent event schema", () => {
  it("carries the recorded Turn", () => {
    expect(agentEventSchema.parse({ type: "turn-end", turn })).toEqual({ type: "turn-end", turn });
  });

  it("rejects an event that does not match, naming the field", () => {
    const r = agentEventSchema.safeParse({ type: "action", index: 0, actor: "robot", action: "ls", thought: null });
    expect(r.error?.issues.map((i) => i.path.join("."))).toEqual(["actor"]);
  });
});
