import { describe, expect, it } from "vitest";
import { SAMPLE_TURN as turn } from "@/lib/testing/turns";
import { liveEventSchema, loggedLiveEventSchema } from "./events";
import { toLiveEvent } from "./from-engine";

describe("live events", () => {
  it("tells a model episode's turn with the same turnEnd a person's episode sends", () => {
    const live = toLiveEvent({ type: "turn-end", turn });
    const wire = loggedLiveEventSchema.parse(JSON.parse(JSON.stringify({ type: "logged", seq: 4, event: live })));
    expect(wire.event).toEqual({
      type: "turnEnd",
      index: 2,
      actor: "human",
      source: "console",
      action: "ls",
      observation: "a\n",
      ok: true,
      durationMs: 3,
      thought: null,
      tokensIn: null,
      tokensOut: null,
      latencyMs: null,
      costUsd: null,
    });
    // A person's turn on the websocket: the same event, without the model's fields.
    const person = { type: "turnEnd", index: 0, actor: "human", source: "editor", action: "SELECT 1", ok: true, observation: "1", durationMs: 5 };
    expect(liveEventSchema.parse(person)).toEqual(person);
  });

  it("keeps what no page shows out of the channel, and rejects an event that does not match", () => {
    expect(toLiveEvent({ type: "submitted", reward: 1, success: true })).toBeNull();
    expect(toLiveEvent({ type: "turn-start", index: 0, actor: "model" })).toEqual({ type: "turnStart", index: 0, actor: "model" });
    expect(loggedLiveEventSchema.safeParse({ type: "logged", seq: 0, event: { type: "mode", mode: "asleep" } }).success).toBe(false);
    expect(loggedLiveEventSchema.safeParse({ type: "logged", seq: 0, event: { type: "mode", mode: "paused" } }).success).toBe(true);
    const r = liveEventSchema.safeParse({ type: "turnStart", index: 0, actor: "robot" });
    expect(r.error?.issues.map((i) => i.path.join("."))).toEqual(["actor"]);
  });
});
