import { describe, expect, it } from "vitest";
import { uuidv7 } from "./ids";

describe("uuidv7", () => {
  it("is an RFC 9562 version-7 UUID carrying the time, in order, and unique", () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 0, 123);
    const ids = Array.from({ length: 5000 }, () => uuidv7(now));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(ids[0].replace(/-/g, "").slice(0, 12), 16)).toBe(now);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    const later = uuidv7(now + 10_000);
    expect(parseInt(later.replace(/-/g, "").slice(0, 12), 16)).toBe(now + 10_000);
    expect(later > ids[ids.length - 1]).toBe(true);
  });
});
