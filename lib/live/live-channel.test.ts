import { describe, expect, it } from "vitest";
import type { LiveEventInput, LoggedLiveEvent } from "./events";
import { LiveChannel } from "./live-channel";

describe("the live channel: one attach, reattach and detach path", () => {
  it("a person's episode has one player: another window takes it over, and the first hears so", () => {
    const channel = LiveChannel.player();
    const first: LiveEventInput[] = [];
    const second: LiveEventInput[] = [];
    channel.attach((m) => first.push(m));
    channel.send({ type: "status", message: "a" });
    channel.attach((m) => second.push(m));
    channel.send({ type: "status", message: "b" });
    expect(first).toEqual([
      { type: "status", message: "a" },
      { type: "error", code: "conflict", message: "this episode was opened in another window", fatal: true },
    ]);
    expect(second).toEqual([{ type: "status", message: "b" }]);
    expect(channel.log).toEqual([]);
  });

  it("a model's episode is logged: a watcher that reattaches reads from where it left, and after the end only reads", () => {
    const channel = LiveChannel.logged();
    const a: LoggedLiveEvent[] = [];
    const detach = channel.attach((m) => a.push(m));
    for (const mode of ["running", "paused", "running"] as const) channel.send({ type: "mode", mode });
    detach();
    channel.send({ type: "mode", mode: "human" });
    expect(a.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(channel.watched).toBe(false);
    const b: LoggedLiveEvent[] = [];
    channel.attach((m) => b.push(m), 3);
    channel.send({ type: "mode", mode: "stopped" });
    channel.end();
    const c: LoggedLiveEvent[] = [];
    const stop = channel.attach((m) => c.push(m), 3);
    stop();
    expect(b.map((e) => e.seq)).toEqual([3, 4]);
    expect(c.map((e) => e.seq)).toEqual([3, 4]);
    expect(channel.watched).toBe(true);
    expect(() => channel.send({ type: "mode", mode: "asleep" } as unknown as LiveEventInput)).toThrow();
  });
});
