import { describe, expect, it } from "vitest";
import { toCsv } from "@/lib/viewer/csv";
import { listParamsFromUrl, listQuery, parseListParams, toEpisodeFilters } from "@/lib/viewer/list-params";

describe("list params", () => {
  it("parses a view from the URL into store filters", () => {
    const p = listParamsFromUrl(
      new URLSearchParams("q=ls -la&env=bash,sql&solved=no&rmin=0.5&tmax=3&imin=1&tag=timeout&sort=reward&dir=asc&page=2&from=2026-01-01"),
    );
    expect(p.sort).toBe("reward");
    expect(p.page).toBe(2);
    const f = toEpisodeFilters(p);
    expect(f).toMatchObject({ search: "ls -la", environment: ["bash", "sql"], success: false, rewardMin: 0.5, turnsMax: 3, invalidMin: 1, tag: "timeout" });
    expect(f.startedAfter?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });
  it("drops malformed values instead of failing", () => {
    const p = parseListParams({ sort: "nope", page: "-3", rmin: "abc", solved: "maybe", from: "not a date", dir: "up" });
    expect(p).toMatchObject({ sort: undefined, page: undefined, rmin: undefined, solved: undefined, from: undefined, dir: undefined });
    expect(toEpisodeFilters(p)).toEqual({});
  });
  it("writes a view back without empty values", () => {
    expect(listQuery({ q: "a b", env: ["bash", "sql"], page: 2, tag: "" })).toBe("?q=a+b&env=bash%2Csql&page=2");
  });
});

describe("toCsv", () => {
  it("quotes cells that need it", () => {
    expect(
      toCsv(
        ["a", "b"],
        [
          { a: 'x,"y"', b: 0.5 },
          { a: null, b: 2 },
        ],
      ),
    ).toBe('a,b\r\n"x,""y""",0.5\r\n,2\r\n');
  });
});
