import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import { type PyValue, pyRepr, pyReprBytes, pyReprFloat, pyReprRows, pyReprRowsConcatenated, pyReprString, pyReprTuple } from "./python-repr";
import { mulberry32 } from "@/lib/seeded-random";
import { runPython } from "./testing/python-oracle";

const intercodeDir = config().sharedIntercodeDir;

describe("python repr", () => {
  it("prints tuples, lists and scalars as Python does", () => {
    expect(
      pyReprRows([
        ["Alice", 3],
        ["Bob", null],
      ]),
    ).toBe("[('Alice', 3), ('Bob', None)]");
    expect(pyReprTuple([5])).toBe("(5,)");
    expect(pyReprTuple([])).toBe("()");
    expect(pyReprRows([])).toBe("[]");
    expect(pyReprRowsConcatenated([["city"], ["country"]])).toBe("('city',)('country',)");
    expect(pyRepr({ py: "float", value: 5 })).toBe("5.0");
    expect(pyRepr(0.1)).toBe("0.1");
    expect(pyRepr(1e-5)).toBe("1e-05");
    expect(pyRepr(Number.POSITIVE_INFINITY)).toBe("inf");
    expect(pyRepr(true)).toBe("True");
    expect(pyRepr(12345678901234567890n)).toBe("12345678901234567890");
    expect(pyRepr(1e22)).toBe("10000000000000000000000");
    expect(pyReprString("it's")).toBe(`"it's"`);
    expect(pyReprString(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pyRepr({ py: "decimal", text: "12.50" })).toBe("Decimal('12.50')");
    expect(pyRepr(new Uint8Array([0x61, 0x27, 0x00, 0xff]))).toBe(`b"a'\\x00\\xff"`);
    expect(pyRepr({ py: "datetime", year: 2018, month: 3, day: 19, hour: 4, minute: 39, second: 54 })).toBe("datetime.datetime(2018, 3, 19, 4, 39, 54)");
    expect(pyRepr({ py: "datetime", year: 2018, month: 3, day: 19 })).toBe("datetime.datetime(2018, 3, 19, 0, 0)");
    expect(pyRepr(new Date(Date.UTC(2020, 0, 2, 3, 4, 5, 6)))).toBe("datetime.datetime(2020, 1, 2, 3, 4, 5, 6000)");
    expect(pyRepr({ py: "date", year: 2001, month: 12, day: 31 })).toBe("datetime.date(2001, 12, 31)");
    expect(pyRepr({ py: "timedelta", seconds: 3600 })).toBe("datetime.timedelta(seconds=3600)");
    expect(pyRepr({ py: "timedelta", seconds: -1 })).toBe("datetime.timedelta(days=-1, seconds=86399)");
    expect(pyRepr({ py: "timedelta" })).toBe("datetime.timedelta(0)");
    expect(pyRepr({ py: "list", items: [1, [2]] })).toBe("[1, (2,)]");
  });

  it("matches python3's repr() of random strings, bytes and floats", () => {
    const random = mulberry32(99);
    const pool = [
      "a",
      "'",
      '"',
      "\\",
      "\n",
      "\t",
      "\r",
      "\0",
      "\x7f",
      "\x85",
      "\xa0",
      "é",
      "\u2028",
      "\u200b",
      "\ue000",
      "\u0378",
      "\ud800",
      "\u{1f600}",
      "\u{e0001}",
      "\u3000",
      " ",
    ];
    const strings = Array.from({ length: 500 }, () =>
      Array.from({ length: Math.floor(random() * 8) }, () => pool[Math.floor(random() * pool.length)]).join(""),
    );
    const bytes = Array.from({ length: 200 }, () => Array.from({ length: Math.floor(random() * 8) }, () => Math.floor(random() * 256)));
    const floats: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const r = random();
      floats.push([r, r * 1e-3, r * 1e-5, r * 1e16, r * 1e17, Math.round(r * 1e6), r * 1e300, r * 1e-310, 10 ** Math.floor(r * 40 - 20), -r][i % 10]);
    }
    const want = runPython<{ s: string[]; b: string[]; f: string[] }>(
      "result = {'s': [repr(x) for x in data['s']], 'b': [repr(bytes(x)) for x in data['b']], 'f': [repr(float(x)) for x in data['f']]}",
      { s: strings, b: bytes, f: floats },
    );
    expect(strings.map(pyReprString)).toEqual(want.s);
    expect(bytes.map((b) => pyReprBytes(Uint8Array.from(b)))).toEqual(want.b);
    expect(floats.map(pyReprFloat)).toEqual(want.f);
  });

  it("reproduces every row observation of InterCode's human SQL log", () => {
    const file = path.join(intercodeDir, "results-sample/sql/ic_sql_multiturn_human_10_turns.json");
    const log = JSON.parse(readFileSync(file, "utf8")) as Record<string, { trajectory: { observation: string }[] }>;
    const observations = Object.values(log)
      .flatMap((e) => e.trajectory.map((t) => t.observation))
      .filter((o) => o.startsWith("("));
    expect(observations.length).toBeGreaterThan(50);
    // Python parses each logged observation back into typed values; we print them again.
    const typed = runPython<unknown[][][]>(
      `
import datetime, io, tokenize
from decimal import Decimal
def split_tuples(text):
    out, depth, start = [], 0, 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string == '(':
            if depth == 0: start = tok.start[1]
            depth += 1
        elif tok.type == tokenize.OP and tok.string == ')':
            depth -= 1
            if depth == 0: out.append(text[start:tok.end[1]])
    return out
def typed(v):
    if v is None or isinstance(v, (bool, str)): return v
    if isinstance(v, int): return v
    if isinstance(v, float): return {'py': 'float', 'value': v}
    if isinstance(v, Decimal): return {'py': 'decimal', 'text': str(v)}
    if isinstance(v, datetime.datetime): return {'py': 'datetime', 'year': v.year, 'month': v.month, 'day': v.day, 'hour': v.hour, 'minute': v.minute, 'second': v.second, 'microsecond': v.microsecond}
    if isinstance(v, datetime.date): return {'py': 'date', 'year': v.year, 'month': v.month, 'day': v.day}
    if isinstance(v, datetime.timedelta): return {'py': 'timedelta', 'days': v.days, 'seconds': v.seconds, 'microseconds': v.microseconds}
    raise TypeError(type(v))
ns = {'datetime': datetime, 'Decimal': Decimal}
result = [[[typed(v) for v in eval(t, ns)] for t in split_tuples(o)] for o in data]
`,
      observations,
    );
    const printed = typed.map((rows) => pyReprRowsConcatenated(rows as PyValue[][]));
    expect(printed).toEqual(observations);
  });

  it("never throws on odd objects", () => {
    expect(pyRepr({ nope: 1 } as unknown as PyValue)).toBe(`'{"nope":1}'`);
    expect(pyRepr(new Date(Number.NaN))).toBe("None");
  });
});
