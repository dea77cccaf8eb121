import { describe, expect, it } from "vitest";
import { formatDate, formatDuration } from "./format-date";

describe("formatDate", () => {
  it("writes UTC minutes in ISO order, whatever it is given", () => {
    expect(formatDate(new Date("2026-12-01T07:42:59.900Z"))).toBe("2026-12-01 07:42 UTC");
    expect(formatDate(Date.UTC(2026, 0, 2, 3, 4))).toBe("2026-01-02 03:04 UTC");
    expect(formatDate("2026-12-01T23:59:00+02:00")).toBe("2026-12-01 21:59 UTC");
    expect(formatDate(null)).toBe("–");
    expect(formatDate("not a date")).toBe("–");
  });
  it("writes durations as m:ss or h:mm:ss", () => {
    expect(formatDuration(0)).toBe("0:00");
    expect(formatDuration(61_499)).toBe("1:01");
    expect(formatDuration(3_600_000 + 5_000)).toBe("1:00:05");
    expect(formatDuration(null)).toBe("–");
  });
});
