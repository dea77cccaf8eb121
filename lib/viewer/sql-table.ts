/**
 * SQL results for people: the stored observation stays InterCode's text (the rows' Python reprs,
 * `('Harbour Gate', 3)('Old Mill Square', None)`, or `[(...), (...)]` as `str(fetchall())` prints),
 * and the replay reads it back into cells to draw a table. Client-safe and pure.
 */

/** A result set read back from its Python text: each cell as a person reads it. */
export interface SqlTable {
  columns: string[];
  rows: string[][];
  /** Where the column names came from: the SQL engine, the query's select list, or numbered. */
  columnSource: "engine" | "query" | "numbered";
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0", a: "\x07", b: "\b", f: "\f", v: "\v" };

/** Reads a Python str/bytes literal at `i` (the quote, after any b prefix); its text and the index after it. */
function readString(s: string, i: number): { text: string; end: number } | null {
  const q = s[i];
  if (q !== "'" && q !== '"') return null;
  let out = "";
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === q) return { text: out, end: j + 1 };
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = s[++j];
    const hex = n === "x" ? 2 : n === "u" ? 4 : n === "U" ? 8 : 0;
    if (hex) {
      const code = parseInt(s.slice(j + 1, j + 1 + hex), 16);
      if (!Number.isFinite(code)) return null;
      out += String.fromCodePoint(code);
      j += hex;
    } else out += ESCAPES[n] ?? `\\${n}`;
  }
  return null;
}

/** Reads one tuple `( ... )` at `i`: its cells and the index after it, or null when it is not one. */
function readTuple(s: string, i: number): { cells: string[]; end: number } | null {
  if (s[i] !== "(") return null;
  const cells: string[] = [];
  let j = i + 1;
  const skipSpace = () => {
    while (s[j] === " ") j++;
  };
  skipSpace();
  if (s[j] === ")") return { cells, end: j + 1 };
  for (;;) {
    skipSpace();
    const bytes = s[j] === "b" && (s[j + 1] === "'" || s[j + 1] === '"');
    const str = readString(s, bytes ? j + 1 : j);
    if (str) {
      cells.push(str.text);
      j = str.end;
    } else {
      // A bare value (number, None, True, Decimal('1.5'), datetime.date(2020, 1, 2)): up to a comma or ) at depth 0.
      const start = j;
      let depth = 0;
      while (j < s.length) {
        const c = s[j];
        if (c === "'" || c === '"') {
          const inner = readString(s, j);
          if (!inner) return null;
          j = inner.end;
          continue;
        }
        if (c === "(") depth++;
        else if (c === ")") {
          if (depth === 0) break;
          depth--;
        } else if (c === "," && depth === 0) break;
        j++;
      }
      const raw = s.slice(start, j).trim();
      if (!raw) return null;
      cells.push(bareCell(raw));
    }
    skipSpace();
    if (s[j] === ",") {
      j++;
      skipSpace();
      if (s[j] === ")") return { cells, end: j + 1 };
      continue;
    }
    if (s[j] === ")") return { cells, end: j + 1 };
    return null;
  }
}

/** A bare Python value as a table cell: None → NULL, Decimal('12.50') → 12.50; anything else as printed. */
function bareCell(raw: string): string {
  if (raw === "None") return "NULL";
  const dec = /^Decimal\((['"])(.*)\1\)$/.exec(raw);
  if (dec) return dec[2];
  return raw;
}

/**
 * The rows of a stored SQL observation, or null when the text is not a result set (an error, a
 * "Query OK" line, a cut-off observation). Both InterCode shapes are read: tuples back to back, and
 * a list of tuples. The empty text is no rows.
 */
export function parseSqlRows(text: string): string[][] | null {
  const s = text.trim();
  if (s === "" || s === "[]") return [];
  let i = 0;
  let list = false;
  if (s[0] === "[") {
    list = true;
    i = 1;
  }
  const rows: string[][] = [];
  while (i < s.length) {
    if (list && s[i] === "]") return i === s.length - 1 ? rows : null;
    const t = readTuple(s, i);
    if (!t) return null;
    rows.push(t.cells);
    i = t.end;
    if (list) {
      while (s[i] === " ") i++;
      if (s[i] === ",") i++;
      while (s[i] === " ") i++;
    }
  }
  return list ? null : rows;
}

/** The positions of `s` outside parentheses and quotes (a closing parenthesis or quote is not one). */
function* topLevel(s: string, from = 0): Generator<number> {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (depth === 0) yield i;
  }
}

/** Splits at the commas that are outside parentheses and quotes. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const i of topLevel(s)) {
    if (s[i] !== ",") continue;
    out.push(s.slice(start, i));
    start = i + 1;
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim());
}

/** Index of keyword `word` (a whole word, any case) outside parentheses and quotes; -1 when absent. */
function topLevelKeyword(s: string, word: string): number {
  const re = new RegExp(`^${word}\\b`, "i");
  for (const i of topLevel(s)) if ((i === 0 || /\W/.test(s[i - 1])) && re.test(s.slice(i, i + word.length + 1))) return i;
  return -1;
}

const unquote = (name: string) => name.replace(/^([`"[])(.*)[`"\]]$/, "$2");

/**
 * The column names of a query's result as the MySQL client heads them, read from its select list:
 * an alias (`count(*) AS n`, `name n`) names its column, a qualified column (`T1.name`) is its last
 * part, any other expression is its text. Null when the list cannot tell (`*`, `t.*`, no SELECT).
 * Of several statements, the last one's (it gives the result).
 */
export function columnsFromQuery(sql: string): string[] | null {
  const statements = sql
    .split(";")
    .map((x) => x.trim())
    .filter(Boolean);
  const last = statements.at(-1);
  if (!last) return null;
  const sel = topLevelKeyword(last, "select");
  if (sel < 0) return null;
  let body = last.slice(sel + "select".length);
  const from = topLevelKeyword(body, "from");
  if (from >= 0) body = body.slice(0, from);
  body = body.replace(/^\s*(distinct|all)\b/i, "");
  const items = splitTopLevel(body.trim());
  if (!items.length || items.some((x) => x === "" || /(^|\.)\*$/.test(x))) return null;
  const ident = '([A-Za-z_][\\w$]*|`[^`]+`|"[^"]+"|\\[[^\\]]+\\])';
  return items.map((item) => {
    if (new RegExp(`^${ident}$`).test(item)) return unquote(item);
    const explicit = new RegExp(`\\s+as\\s+(${ident.slice(1, -1)}|'[^']*')$`, "i").exec(item);
    if (explicit) return unquote(explicit[1].replace(/^'(.*)'$/, "$1"));
    const implicit = new RegExp(`[\\w)\`"'\\]]\\s+${ident}$`).exec(item);
    if (implicit && !/^(end|and|or|not|is|null|desc|asc|distinct)$/i.test(implicit[1])) return unquote(implicit[1]);
    if (new RegExp(`^${ident}(\\.${ident})+$`).test(item)) return unquote(item.split(".").at(-1)!);
    return item;
  });
}

/**
 * A stored SQL observation as a table, or null when it is not a result set. Column names come from
 * the engine when a replay gave them, else from the query, else c1..cn; names that do not fit the
 * rows' width are dropped for numbered ones.
 */
export function sqlTableOf(observation: string, query: string, engineColumns?: string[] | null): SqlTable | null {
  const rows = parseSqlRows(observation);
  if (!rows) return null;
  const width = rows[0]?.length ?? engineColumns?.length ?? 0;
  if (rows.some((r) => r.length !== width)) return null;
  if (engineColumns && engineColumns.length === width && (width > 0 || !rows.length)) return { columns: engineColumns, rows, columnSource: "engine" };
  const fromQuery = columnsFromQuery(query);
  if (fromQuery && (fromQuery.length === width || !rows.length)) return { columns: fromQuery, rows, columnSource: "query" };
  return { columns: Array.from({ length: width }, (_, i) => `c${i + 1}`), rows, columnSource: "numbered" };
}
