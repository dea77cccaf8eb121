import { describe, expect, it } from "vitest";
import { StorageError } from "@/lib/errors";
import { columnsOf, recordParser, rowParser, tableColumns } from "./rows";

/** The one row schema, on rows as the engines hand them out: no store needed. */
describe("row schema", () => {
  const turnRow = rowParser("Turn", columnsOf("Turn"));
  const good = {
    id: 7,
    episodeId: "e1",
    index: 0,
    actor: "human",
    action: "ls",
    observation: "a\n",
    ok: 1,
    reward: null,
    rawReply: null,
    thought: null,
    tokensIn: null,
    tokensOut: null,
    durationMs: 12,
    latencyMs: null,
    costUsd: null,
    source: "console",
    timedOut: 0,
    aborted: 0,
    startedAt: 1_780_000_000_000,
    createdAt: 1_780_000_000_001,
  };

  it("reads booleans stored as 1/0 and keeps times in milliseconds", () => {
    expect(turnRow.one(good)).toMatchObject({ ok: true, timedOut: false, aborted: false, startedAt: 1_780_000_000_000 });
    expect(turnRow.one({ ...good, ok: null }).ok).toBeNull();
  });

  it("rejects a malformed row with an error naming the table, the row and the column", () => {
    const bad = () => turnRow.one({ ...good, timedOut: "yes" });
    expect(bad).toThrow(StorageError);
    expect(bad).toThrow(`the store's Turn row 7 has a bad value in column "timedOut": expected a boolean stored as 0 or 1 (got "yes")`);
    expect(() => turnRow.one({ ...good, createdAt: "2026-12-01" })).toThrow(/column "createdAt": expected a time in Unix milliseconds/);
    const { action: _, ...missing } = good;
    expect(() => turnRow.one(missing)).toThrow(/Turn row 7 has a bad value in column "action".*got undefined/);
  });

  it("parses only the columns a query selected, plus its computed ones", () => {
    const p = rowParser("Episode", ["id", "success"], {});
    expect(p.all([{ id: "e1", success: 0, extra: 1 }])).toEqual([{ id: "e1", success: false }]);
    expect(() => p.one({ id: 5, success: 1 })).toThrow(/Episode row 5 has a bad value in column "id"/);
  });

  it("hands out a table's model as Prisma types it: times as Dates, a BigInt column as a bigint", () => {
    const chunk = recordParser("RecordingChunk", ["seq", "startedAt", "truncated"]);
    expect(chunk.one({ seq: 0, startedAt: 1_780_000_000_000, truncated: 1 })).toEqual({ seq: 0, startedAt: 1_780_000_000_000n, truncated: true });
    const session = recordParser("Session", ["id", "expiresAt", "revokedAt"]);
    expect(session.one({ id: "s", expiresAt: 1_780_000_000_000, revokedAt: null })).toEqual({
      id: "s",
      expiresAt: new Date(1_780_000_000_000),
      revokedAt: null,
    });
  });

  it("reads each column's kind and nullability off the table's record", () => {
    expect(tableColumns("TurnReplay")).toEqual([
      { name: "id", kind: "number", nullable: false },
      { name: "episodeId", kind: "text", nullable: false },
      { name: "index", kind: "number", nullable: false },
      { name: "reward", kind: "number", nullable: true },
      { name: "agrees", kind: "flag", nullable: false },
      { name: "columns", kind: "text", nullable: true },
      { name: "createdAt", kind: "time", nullable: false },
    ]);
  });
});
