import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bashReward } from "./bash";
import { ctfReward } from "./ctf";
import { parseGitStatus } from "./git-status";
import { kendallTau } from "./kendall";
import { pythonReward } from "./python";
import { type PyValue, pyRepr, pyReprRows } from "./python-repr";
import { pyRound } from "./round";
import { sqlReward } from "./sql";
import { tfidfCosine } from "./tfidf";
import type { RewardResult } from "./types";

/** Reward functions are called with whatever the environment scraped together: anything goes. */
const RUNS = { numRuns: 300 };

function isValidReward(r: RewardResult): boolean {
  return Number.isFinite(r.reward) && r.reward >= 0 && r.reward <= 1 && pyRound(r.reward, 2) === r.reward;
}

const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.constantFrom("", " ", "\n", "a", "aa bb", "AA aa"));
const statusLine = fc.tuple(
  fc.constantFrom("??", " M", "M ", "D ", " D", "A ", "R ", "C ", "MM", "!!", "xx"),
  fc.oneof(text, fc.constantFrom("a.txt", "dir/", '"q\\"x"', "a -> b")),
);
const statusText = fc.oneof(
  text,
  fc.array(statusLine, { maxLength: 8 }).map((ls) => ls.map(([c, p]) => `${c} ${p}`).join("\n")),
);
const outcome = fc.constantFrom("pass", "fail", "error") as fc.Arbitrary<"pass" | "fail" | "error">;
const tagged: fc.Arbitrary<PyValue> = fc.oneof(
  fc.record({ py: fc.constant("float" as const), value: fc.oneof(fc.double(), fc.anything() as fc.Arbitrary<number>) }),
  fc.record({ py: fc.constant("decimal" as const), text: fc.string() }),
  // Tagged values with missing, wrongly typed or non-finite fields.
  fc.record({
    py: fc.constantFrom("datetime", "date", "timedelta", "list"),
    year: fc.anything(),
    month: fc.integer(),
    day: fc.double(),
    items: fc.anything(),
  }) as unknown as fc.Arbitrary<PyValue>,
) as fc.Arbitrary<PyValue>;
const value: fc.Arbitrary<PyValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer(),
  fc.bigInt(),
  text,
  fc.uint8Array({ maxLength: 6 }),
  fc.date({ noInvalidDate: false }),
  tagged,
  fc.anything({ withBigInt: true, withDate: true, withTypedArray: true, withNullPrototype: true, withMap: true, withSet: true }) as fc.Arbitrary<PyValue>,
);
const rows = fc.oneof(
  fc.array(fc.array(value, { maxLength: 3 }), { maxLength: 6 }),
  fc.array(fc.array(fc.constantFrom<PyValue>(1, "a", null), { minLength: 1, maxLength: 2 }), { maxLength: 12 }),
);
const hashes = fc.dictionary(fc.oneof(fc.constantFrom("a.txt", "dir", "dir/"), fc.string()), fc.constantFrom("h1", "h2", ""));

describe("reward functions under arbitrary input", () => {
  it("bash: never throws, reward in [0, 1] with 2 decimals", () => {
    fc.assert(
      fc.property(statusText, statusText, hashes, hashes, fc.option(text), fc.option(text), (as, gs, ah, gh, ao, go) => {
        expect(isValidReward(bashReward({ agentStatus: as, goldStatus: gs, agentHashes: ah, goldHashes: gh, agentObservation: ao, goldObservation: go }))).toBe(
          true,
        );
      }),
      RUNS,
    );
  });

  it("bash: survives wrongly typed input", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), fc.anything(), fc.anything(), fc.anything(), (as, gs, ah, gh, ao, go) => {
        const r = bashReward({ agentStatus: as, goldStatus: gs, agentHashes: ah, goldHashes: gh, agentObservation: ao, goldObservation: go } as never);
        expect(isValidReward(r)).toBe(true);
      }),
      RUNS,
    );
  });

  it("sql: never throws, reward in [0, 1] with 2 decimals, order in [-1, 1] or null", () => {
    fc.assert(
      fc.property(fc.option(rows), fc.option(rows), fc.option(fc.string()), (agentRows, goldRows, agentError) => {
        const r = sqlReward({ agentRows, goldRows, agentError });
        expect(isValidReward(r)).toBe(true);
        const order = r.breakdown.order;
        expect(order === null || (order >= -1 && order <= 1)).toBe(true);
      }),
      RUNS,
    );
  });

  it("sql: a result compared with itself scores 1", () => {
    fc.assert(
      fc.property(rows, (rs) => {
        expect(sqlReward({ agentRows: rs, goldRows: rs }).reward).toBe(1);
      }),
      RUNS,
    );
  });

  it("python and ctf: never throw, reward in [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.record({ test: fc.string(), gold: outcome, agent: outcome }), { maxLength: 10 }),
        fc.option(fc.string()),
        (functionName, tests, error) => {
          expect(isValidReward(pythonReward({ functionName, tests, error: error ?? undefined }))).toBe(true);
        },
      ),
      RUNS,
    );
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (submitted, flag) => {
        expect(isValidReward(ctfReward({ submitted, flag } as never))).toBe(true);
      }),
      RUNS,
    );
  });

  it("parsers and printers never throw", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(Array.isArray(parseGitStatus(t))).toBe(true);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(value, (v) => {
        expect(typeof pyRepr(v)).toBe("string");
      }),
      RUNS,
    );
    fc.assert(
      fc.property(rows, (rs) => {
        expect(pyReprRows(rs).startsWith("[")).toBe(true);
      }),
      RUNS,
    );
  });
});

describe("building blocks", () => {
  it("pyRound is idempotent and lands within half a unit of the last digit", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: -1e15, max: 1e15 }), fc.integer({ min: 0, max: 6 }), (x, n) => {
        const r = pyRound(x, n);
        expect(pyRound(r, n)).toBe(r);
        expect(Math.abs(r - x)).toBeLessThanOrEqual(0.5 * 10 ** -n * (1 + 1e-9) + Math.abs(x) * 1e-15);
      }),
      RUNS,
    );
  });

  it("tf-idf cosine is symmetric and in [0, 1]", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const ab = tfidfCosine(a, b);
        const ba = tfidfCosine(b, a);
        expect(ab).toBeGreaterThanOrEqual(0);
        expect(ab).toBeLessThanOrEqual(1);
        expect(Math.abs(ab - ba)).toBeLessThan(1e-15);
        expect(tfidfCosine(a, a)).toBeCloseTo(1, 12);
      }),
      RUNS,
    );
  });

  it("kendall tau is in [-1, 1] or null, symmetric, and about 1 against itself when defined", () => {
    const seq = fc.array(fc.oneof(fc.constantFrom("a", "b", "c", "a\0"), fc.string()), { maxLength: 15 });
    fc.assert(
      fc.property(seq, fc.infiniteStream(fc.nat()), (x, idx) => {
        const it = idx[Symbol.iterator]();
        const y = x.map(() => x[it.next().value % x.length]);
        const t = kendallTau(x, y);
        expect(t === null || (t >= -1 && t <= 1)).toBe(true);
        // Symmetric up to the order of scipy's two divisions; with ties, x against x is
        // 0.9999999999999999 in scipy too (2/√2/√2).
        const back = kendallTau(y, x);
        expect(t === null ? back === null : Math.abs((back ?? 0) - t) < 1e-15).toBe(true);
        const self = kendallTau(x, x);
        expect(self === null || Math.abs(self - 1) < 1e-15).toBe(true);
      }),
      RUNS,
    );
  });
});
