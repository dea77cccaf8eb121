/**
 * Python `repr()` of SQL result values, so rows look the way InterCode's logs show them and so the
 * SQL reward can compare rows by the same text InterCode compared (`str()` of each row tuple).
 *
 * JavaScript cannot tell 5 from 5.0 or a DECIMAL from a double, so the SQL layer marks such values:
 * - a plain `number` prints as an int when it is integral, else as a float (`0.1`, `1e-05`, `inf`);
 * - `{ py: "float", value }` always prints as a float (`5.0`), for REAL/DOUBLE/FLOAT columns;
 * - `{ py: "decimal", text }` prints as `Decimal('12.50')` (MySQL DECIMAL through mysql-connector);
 * - `{ py: "datetime" | "date" | "timedelta", ... }` print as the `datetime` module's reprs;
 * - `bigint` prints as an int, `boolean` as True/False, `null`/`undefined` as None;
 * - `Uint8Array` (and Node's Buffer) prints as bytes `b'...'`;
 * - a JavaScript `Date` prints as a `datetime.datetime` of its UTC fields;
 * - an array prints as a tuple (`(5,)` for one item), `{ py: "list", items }` as a list.
 */
export type PyValue =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Date
  | PyFloat
  | PyDecimal
  | PyDateTime
  | PyDate
  | PyTimedelta
  | PyList
  | readonly PyValue[];

export interface PyFloat {
  py: "float";
  value: number;
}
export interface PyDecimal {
  py: "decimal";
  /** The decimal's text as the database gave it, e.g. "12.50", "-0.0010". */
  text: string;
}
export interface PyDateTime {
  py: "datetime";
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  microsecond?: number;
}
export interface PyDate {
  py: "date";
  year: number;
  month: number;
  day: number;
}
/** MySQL TIME values come back from mysql-connector as `datetime.timedelta`. */
export interface PyTimedelta {
  py: "timedelta";
  days?: number;
  seconds?: number;
  microseconds?: number;
}
export interface PyList {
  py: "list";
  items: readonly PyValue[];
}

/** `repr()` of one value. Never throws: an unknown or malformed object prints as its JSON, quoted. */
export function pyRepr(value: PyValue): string {
  try {
    return reprValue(value);
  } catch {
    return pyReprString(Object.prototype.toString.call(value));
  }
}

function reprValue(value: PyValue): string {
  if (value === null || value === undefined) return "None";
  switch (typeof value) {
    case "boolean":
      return value ? "True" : "False";
    case "bigint":
      return value.toString();
    case "number":
      return Number.isInteger(value) ? intText(value) : pyReprFloat(value);
    case "string":
      return pyReprString(value);
    default:
      break;
  }
  if (Array.isArray(value)) return pyReprTuple(value);
  if (value instanceof Uint8Array) return pyReprBytes(value);
  if (value instanceof Date) return reprDate(value);
  const tagged = value as Exclude<PyValue, null | undefined | boolean | bigint | number | string | Uint8Array | Date | readonly PyValue[]>;
  switch (tagged.py) {
    case "float":
      return pyReprFloat(Number(tagged.value));
    case "decimal":
      return `Decimal(${pyReprString(String(tagged.text))})`;
    case "datetime":
      return reprDateTime(tagged);
    case "date":
      return `datetime.date(${int(tagged.year)}, ${int(tagged.month)}, ${int(tagged.day)})`;
    case "timedelta":
      return reprTimedelta(tagged);
    case "list":
      return Array.isArray(tagged.items) ? `[${tagged.items.map(pyRepr).join(", ")}]` : "[]";
    default: {
      let json: string;
      try {
        json = JSON.stringify(value) ?? String(value);
      } catch {
        json = Object.prototype.toString.call(value);
      }
      return pyReprString(json);
    }
  }
}

/** `repr()` of a tuple: `(1, 'a')`, `(5,)`, `()`. */
export function pyReprTuple(items: readonly PyValue[]): string {
  if (items.length === 1) return `(${pyRepr(items[0])},)`;
  return `(${items.map(pyRepr).join(", ")})`;
}

/** `repr()` of a list of row tuples, as `str(cursor.fetchall())` prints: `[('Alice', 3), ('Bob', None)]`. */
export function pyReprRows(rows: readonly (readonly PyValue[])[]): string {
  return `[${rows.map(pyReprTuple).join(", ")}]`;
}

/**
 * Rows as InterCode's human-play SQL logs show an observation: each tuple's repr, back to back with
 * nothing between them (`('city',)('country',)`); no rows is the empty string.
 */
export function pyReprRowsConcatenated(rows: readonly (readonly PyValue[])[]): string {
  return rows.map(pyReprTuple).join("");
}

/**
 * `repr()` of a str: single quotes unless the text holds a single quote and no double quote;
 * backslash, the quote, \t \n \r escaped; other unprintable code points (controls, format
 * characters, separators other than the space, surrogates, private use, unassigned) as
 * \xhh, \uhhhh or \Uhhhhhhhh. Printable non-ASCII text stays as it is.
 */
export function pyReprString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f) out += ch;
    else if (isUnprintable(ch)) out += cp < 0x100 ? `\\x${hex(cp, 2)}` : cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    else out += ch;
  }
  return out + quote;
}

/** `repr()` of bytes: `b'...'` with the same quote choice as str; bytes outside 0x20..0x7e as \xhh. */
export function pyReprBytes(bytes: Uint8Array): string {
  const hasSingle = bytes.includes(0x27);
  const quote = hasSingle && !bytes.includes(0x22) ? 0x22 : 0x27;
  let out = `b${String.fromCharCode(quote)}`;
  for (const b of bytes) {
    if (b === quote || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b === 0x09) out += "\\t";
    else if (b === 0x0a) out += "\\n";
    else if (b === 0x0d) out += "\\r";
    else if (b < 0x20 || b >= 0x7f) out += `\\x${hex(b, 2)}`;
    else out += String.fromCharCode(b);
  }
  return out + String.fromCharCode(quote);
}

/**
 * `repr()` of a float: the shortest digits that round-trip (as JavaScript also finds), laid out as
 * Python does: positional between 1e-4 and 1e16 with at least one digit after the point (`5.0`),
 * scientific otherwise with a signed two-digit exponent (`1e-05`, `1.5e+16`); `inf`, `-inf`, `nan`.
 */
export function pyReprFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Number.POSITIVE_INFINITY) return "inf";
  if (x === Number.NEGATIVE_INFINITY) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  const pointAt = exp + 1; // digits before the decimal point
  if (pointAt > 16 || pointAt <= -4) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, "0");
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (pointAt <= 0) return `${sign}0.${"0".repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return `${sign}${digits}${"0".repeat(pointAt - digits.length)}.0`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

function intText(n: number): string {
  return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
}

/** A whole number for the datetime reprs: missing or non-finite fields read as 0. */
function int(v: unknown): number {
  const n = Math.trunc(Number(v ?? 0));
  return Number.isFinite(n) ? n : 0;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

// Python's str.isprintable() is false for categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs (but the
// space). \p{C} covers Cc, Cf, Cs, Co and Cn.
const UNPRINTABLE = /^[\p{C}\p{Zl}\p{Zp}\p{Zs}]$/u;
function isUnprintable(ch: string): boolean {
  return ch !== " " && UNPRINTABLE.test(ch);
}

function reprDateTime(d: PyDateTime): string {
  const fields = [d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond].map(int);
  // datetime's repr drops microsecond when 0, then second when 0; hour and minute always stay.
  if (fields[6] === 0) {
    fields.pop();
    if (fields[5] === 0) fields.pop();
  }
  return `datetime.datetime(${fields.join(", ")})`;
}

function reprDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return "None";
  return reprDateTime({
    py: "datetime",
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    microsecond: date.getUTCMilliseconds() * 1000,
  });
}

/** timedelta normalises to days, 0 <= seconds < 86400, 0 <= microseconds < 10^6, then names the non-zero parts. */
function reprTimedelta(t: PyTimedelta): string {
  const totalMicro = BigInt(int(t.days)) * 86_400_000_000n + BigInt(int(t.seconds)) * 1_000_000n + BigInt(int(t.microseconds));
  const dayMicro = 86_400_000_000n;
  let days = totalMicro / dayMicro;
  let rest = totalMicro % dayMicro;
  if (rest < 0n) {
    rest += dayMicro;
    days -= 1n;
  }
  const seconds = rest / 1_000_000n;
  const micro = rest % 1_000_000n;
  const parts: string[] = [];
  if (days !== 0n) parts.push(`days=${days}`);
  if (seconds !== 0n) parts.push(`seconds=${seconds}`);
  if (micro !== 0n) parts.push(`microseconds=${micro}`);
  return `datetime.timedelta(${parts.length ? parts.join(", ") : "0"})`;
}
