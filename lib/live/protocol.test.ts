import { describe, expect, it } from "vitest";
import { z } from "zod";
import { episodeEndSchema, episodeStartSchema, playerSchema, turnSchema, turnViewSchema } from "@/lib/episodes/turn";
import { clientMessageSchema, MAX_ACTION_BYTES, MAX_MESSAGE_BYTES, parseClientMessage, parseServerMessage } from "./protocol";
import { episodeViewSchema, liveEventSchema, submittedPayloadSchema } from "@/lib/live/events";
import { parseTaskRef, playUrl } from "@/lib/tasks/task-ref";

describe("protocol", () => {
  it("accepts each client message and fills defaults", () => {
    const open = parseClientMessage(JSON.stringify({ type: "open", env: "sql", taskRef: "spider-dev:12" }));
    // No turn limit on the wire: the side that opens the episode applies the engine's default.
    expect(open).toEqual({ ok: true, message: { type: "open", env: "sql", taskRef: "spider-dev:12", mode: "play", feedback: "none" } });
    for (const m of [
      { type: "resume", episodeId: "e1" },
      { type: "action", text: "ls", source: "console" },
      { type: "interrupt" },
      { type: "submit", arg: "f" },
      { type: "restart" },
      { type: "abandon" },
      { type: "watch", id: "a1", from: 3 },
      { type: "control", op: "takeOver" },
      { type: "control", op: "action", text: "ls", source: "console" },
    ]) {
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
    expect(parseClientMessage(JSON.stringify({ type: "open", env: "cobol", taskRef: "a" }))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^env:/),
    });
    expect(parseClientMessage("{")).toEqual({ ok: false, reason: "message is not JSON" });
    // A person's action on a watched model episode needs its text; an op no controller has is refused.
    expect(parseClientMessage(JSON.stringify({ type: "control", op: "action" }))).toMatchObject({ ok: false, reason: expect.stringMatching(/^text:/) });
    expect(parseClientMessage(JSON.stringify({ type: "control", op: "reboot" }))).toMatchObject({ ok: false, reason: expect.stringMatching(/^op:/) });
  });

  it("validates server messages on the client side", () => {
    expect(parseServerMessage(JSON.stringify({ type: "output", index: 0, chunk: "hi\n" })).ok).toBe(true);
    const turnEnd = { type: "turnEnd", index: 0, actor: "human", source: "console", action: "ls", ok: true, observation: "", durationMs: 3 };
    expect(parseServerMessage(JSON.stringify(turnEnd)).ok).toBe(true);
    expect(parseServerMessage(JSON.stringify({ type: "turnEnd", index: "0" })).ok).toBe(false);
  });

  it("addresses tasks as <dataset>:<id> in one URL segment", () => {
    expect(parseTaskRef("spider-dev:12")).toEqual({ dataset: "spider-dev", id: "12" });
    expect(parseTaskRef("find-logs")).toEqual({ dataset: null, id: "find-logs" });
    expect(parseTaskRef("ctf:a:b")).toEqual({ dataset: "ctf", id: "a:b" });
    expect(playUrl("bash", "demo-bash", "a b/c")).toBe("/play/bash/demo-bash%3Aa%20b%2Fc");
  });

  it("takes every turn, episode start and end field from the one schema of it, never restating one", () => {
    // The schema under optional / nullable / default: the field's own type and checks.
    const base = (t: z.ZodType): z.ZodType => {
      const def = (t as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
      return ["optional", "nullable", "default", "prefault"].includes(def.type) && def.innerType ? base(def.innerType) : t;
    };
    const options = (t: z.ZodType) => (base(t) as unknown as { options: string[] }).options;
    const message = (schema: { options: readonly z.ZodObject[] }, type: string) =>
      schema.options.find((o) => (o.shape.type as z.ZodLiteral).value === type)!.shape;
    const turnStart = message(liveEventSchema, "turnStart");
    const turnEnd = message(liveEventSchema, "turnEnd");
    const open = message(clientMessageSchema, "open");
    const limit = message(liveEventSchema, "limitReached");
    const annotator = playerSchema.options[0].shape.annotator;
    // Each wire shape with the schema its fields come from (wire name -> source name where they differ).
    const derived: [string, z.ZodRawShape, z.ZodRawShape, Record<string, string>?][] = [
      ["turnStart", turnStart, turnSchema.shape],
      ["turnEnd", turnEnd, turnSchema.shape],
      ["opened.turns[]", turnViewSchema.shape, turnSchema.shape],
      ["action", message(clientMessageSchema, "action"), turnSchema.shape],
      ["open", open, { ...episodeStartSchema.shape, annotator }],
      ["resume", message(clientMessageSchema, "resume"), episodeStartSchema.shape, { episodeId: "id" }],
      ["opened.episode", episodeViewSchema.shape, { ...episodeStartSchema.shape, annotator, status: episodeEndSchema.shape.status }],
      ["limitReached", limit, episodeStartSchema.shape, { limit: "turnLimit" }],
      ["submitted", submittedPayloadSchema.shape, episodeEndSchema.shape],
      ["error", message(liveEventSchema, "error"), {}, {}],
    ];
    // Where the wire narrows (or widens) the source on purpose, with the relation that must hold.
    const narrowed: Record<string, (wire: z.ZodType, source: z.ZodType) => void> = {
      "turnStart.source": () => {},
      "action.source": (w, src) => expect(options(src)).toEqual(expect.arrayContaining(options(w))),
      "opened.turns[].source": (w) => expect(base(w)).toBeInstanceOf(z.ZodString), // older stored names too
      "open.mode": (w, src) => expect(options(src)).toEqual(expect.arrayContaining(options(w))),
      "opened.episode.mode": (w, src) => expect(options(src)).toEqual(expect.arrayContaining(options(w))),
      "opened.episode.status": (w, src) => expect(options(w)).toEqual(["running", ...options(src)]),
      "open.turnLimit": (w) => expect([w.safeParse(1).success, w.safeParse(0).success, w.safeParse(1001).success]).toEqual([true, false, false]),
      "open.annotator": (w) => expect(w.parse(" ann ")).toBe("ann"),
      // The store keeps any breakdown (unknown); the wire sends the reward's, tagged by its environment.
      "submitted.breakdown": (w) => expect([w.safeParse({ kind: "sql", x: 1 }).success, w.safeParse({ x: 1 }).success]).toEqual([true, false]),
    };
    let compared = 0;
    for (const [name, wire, source, renames = {}] of derived) {
      for (const [field, schema] of Object.entries(wire)) {
        const from = renames[field] ?? field;
        if (!(from in source)) continue;
        compared++;
        const check = narrowed[`${name}.${field}`];
        if (check) check(schema as z.ZodType, source[from] as z.ZodType);
        else expect(base(schema as z.ZodType), `${name}.${field} restates ${from} instead of taking its schema`).toBe(base(source[from] as z.ZodType));
      }
    }
    // turnStart's source is the Turn's own enum; a restated copy would be another object.
    expect(base(turnStart.source as z.ZodType)).toBe(base(turnSchema.shape.source));
    expect(compared).toBeGreaterThanOrEqual(25);
    // And the check bites: a message restating a Turn field with the same type is caught.
    const restated = z.object({ type: z.literal("turnEnd"), index: z.number().int() });
    expect(base(restated.shape.index)).not.toBe(base(turnSchema.shape.index));
  });
});
