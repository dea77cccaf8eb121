import { describe, expect, it } from "vitest";
import { MAX_ACTION_BYTES, MAX_MESSAGE_BYTES, parseClientMessage, parseServerMessage } from "./protocol";
import { parseTaskRef, playUrl } from "./task-ref";

describe("protocol", () => {
  it("accepts each client message and fills defaults", () => {
    const open = parseClientMessage(JSON.stringify({ type: "open", env: "sql", taskRef: "spider-dev:12" }));
    expect(open).toEqual({ ok: true, message: { type: "open", env: "sql", taskRef: "spider-dev:12", mode: "play", feedback: "none", turnLimit: 10 } });
    for (const m of [{ type: "resume", episodeId: "e1" }, { type: "action", text: "ls", source: "console" }, { type: "interrupt" }, { type: "submit", arg: "f" }, { type: "restart" }, { type: "abandon" }]) {
      expect(parseClientMessage(JSON.stringify(m)).ok).toBe(true);
    }
  });

  it("rejects bad messages with a reason naming the field", () => {
    const r = parseClientMessage(JSON.stringify({ type: "action", text: "", source: "console" }));
    expect(r).toEqual({ ok: false, reason: "text: the action is empty" });
    const big = parseClientMessage(JSON.stringify({ type: "action", text: "é".repeat(MAX_ACTION_BYTES / 2 + 1), source: "editor" }));
    expect(big.ok).toBe(false);
    expect(!big.ok && big.reason).toMatch(/larger than 64 KiB/);
    expect(parseClientMessage("x".repeat(MAX_MESSAGE_BYTES + 1))).toMatchObject({ ok: false, reason: expect.stringMatching(/message larger/) });
    expect(parseClientMessage(JSON.stringify({ type: "open", env: "cobol", taskRef: "a" }))).toMatchObject({ ok: false, reason: expect.stringMatching(/^env:/) });
    expect(parseClientMessage("{")).toEqual({ ok: false, reason: "message is not JSON" });
  });

  it("validates server messages on the client side", () => {
    expect(parseServerMessage(JSON.stringify({ type: "output", chunk: "hi\n" })).ok).toBe(true);
    expect(parseServerMessage(JSON.stringify({ type: "turnEnd", index: 0, ok: true, observation: "", durationMs: 3 })).ok).toBe(true);
    expect(parseServerMessage(JSON.stringify({ type: "turnEnd", index: "0" })).ok).toBe(false);
  });

  it("addresses tasks as <dataset>:<id> in one URL segment", () => {
    expect(parseTaskRef("spider-dev:12")).toEqual({ dataset: "spider-dev", id: "12" });
    expect(parseTaskRef("find-logs")).toEqual({ dataset: null, id: "find-logs" });
    expect(parseTaskRef("ctf:a:b")).toEqual({ dataset: "ctf", id: "a:b" });
    expect(playUrl("bash", "demo-bash", "a b/c")).toBe("/play/bash/demo-bash%3Aa%20b%2Fc");
  });
});
