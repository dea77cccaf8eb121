/**
 * A small MySQL-dialect lexer: enough to split a script into statements, rewrite string
 * literals for SQLite and find keywords outside quotes and comments. It never fails: an
 * unterminated quote or comment runs to the end of the text.
 */

export type TokenKind =
  /** '...' — MySQL string, backslash escapes and doubled quotes. */
  | "string"
  /** "..." — a string in MySQL's default mode (not ANSI_QUOTES). */
  | "dqstring"
  /** `...` — a quoted identifier. */
  | "bquote"
  /** -- ..., # ..., and /* ... *\/ that is not executable. */
  | "comment"
  /** /*! ... *\/ — MySQL's executable comment (its body is SQL for MySQL). */
  | "exec-comment"
  | "word"
  | "number"
  | "semicolon"
  | "space"
  | "punct";

export interface Token {
  kind: TokenKind;
  text: string;
  /** Offset of the first character in the source. */
  start: number;
}

const WORD_START = /[A-Za-z_$\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
}

/** Index just past a quoted run that starts at `i` (the opening quote), honouring `\` escapes when asked. */
function endOfQuoted(src: string, i: number, quote: string, backslash: boolean): number {
  let j = i + 1;
  while (j < src.length) {
    const c = src[j];
    if (backslash && c === "\\") {
      j += 2;
      continue;
    }
    if (c === quote) {
      if (src[j + 1] === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return src.length;
}

/** Splits `src` into tokens; concatenating every token's text gives `src` back. */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    const start = i;
    let kind: TokenKind;
    if (isSpace(c)) {
      while (i < n && isSpace(src[i])) i++;
      kind = "space";
    } else if (c === "'") {
      i = endOfQuoted(src, i, "'", true);
      kind = "string";
    } else if (c === '"') {
      i = endOfQuoted(src, i, '"', true);
      kind = "dqstring";
    } else if (c === "`") {
      i = endOfQuoted(src, i, "`", false);
      kind = "bquote";
    } else if (c === "#" || (c === "-" && src[i + 1] === "-" && (i + 2 >= n || isSpace(src[i + 2])))) {
      while (i < n && src[i] !== "\n") i++;
      kind = "comment";
    } else if (c === "/" && src[i + 1] === "*") {
      const close = src.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 2;
      kind = src[start + 2] === "!" ? "exec-comment" : "comment";
    } else if (c === ";") {
      i++;
      kind = "semicolon";
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      while (i < n && /[0-9.]/.test(src[i])) i++;
      if ((src[i] === "e" || src[i] === "E") && /[-+0-9]/.test(src[i + 1] ?? "")) {
        i += 2;
        while (i < n && /[0-9]/.test(src[i])) i++;
      }
      // 1abc is an identifier in MySQL.
      if (i < n && WORD_START.test(src[i])) {
        while (i < n && WORD_PART.test(src[i])) i++;
        kind = "word";
      } else kind = "number";
    } else if (WORD_START.test(c)) {
      while (i < n && WORD_PART.test(src[i])) i++;
      kind = "word";
    } else {
      i++;
      kind = "punct";
    }
    out.push({ kind, text: src.slice(start, i), start });
  }
  return out;
}

/** One statement of a script: its tokens (without the closing `;`) and its source text. */
export interface Statement {
  text: string;
  tokens: Token[];
  start: number;
}

/**
 * Splits a script at `;` outside quotes and comments. Statements that hold only spaces and
 * plain comments are dropped; executable comments (`/*!40101 SET ... *\/;`) are statements.
 */
export function splitStatements(src: string): Statement[] {
  const out: Statement[] = [];
  let current: Token[] = [];
  const flush = () => {
    if (current.some((t) => t.kind !== "space" && t.kind !== "comment")) {
      const first = current.find((t) => t.kind !== "space" && t.kind !== "comment") ?? current[0];
      const last = current[current.length - 1];
      out.push({ text: src.slice(first.start, last.start + last.text.length).trim(), tokens: current, start: first.start });
    }
    current = [];
  };
  for (const t of tokenize(src)) {
    if (t.kind === "semicolon") flush();
    else current.push(t);
  }
  flush();
  return out;
}

/** The tokens that carry meaning (no spaces, no plain comments). */
export function significant(tokens: Token[]): Token[] {
  return tokens.filter((t) => t.kind !== "space" && t.kind !== "comment");
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "0": "\0",
  "'": "'",
  '"': '"',
  b: "\b",
  n: "\n",
  r: "\r",
  t: "\t",
  Z: "\x1a",
  "\\": "\\",
};

/**
 * The value of a MySQL quoted string token ('...' or "..."): backslash escapes decoded as MySQL
 * does (\0 \' \" \b \n \r \t \Z \\; any other \x is x, so \% and \_ keep their backslash only
 * inside LIKE patterns, which we do not distinguish), and a doubled quote is one quote.
 */
export function decodeMysqlString(token: string): string {
  const quote = token[0];
  const body = token.endsWith(quote) && token.length >= 2 ? token.slice(1, -1) : token.slice(1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\" && i + 1 < body.length) {
      const e = body[++i];
      if (e === "%" || e === "_") out += "\\" + e;
      else out += SIMPLE_ESCAPES[e] ?? e;
    } else if (c === quote && body[i + 1] === quote) {
      out += quote;
      i++;
    } else out += c;
  }
  return out;
}

/** The name inside a `quoted` identifier, or a bare word as written. */
export function identName(token: Token): string {
  if (token.kind === "bquote") return token.text.slice(1, -1).replace(/``/g, "`");
  if (token.kind === "dqstring" || token.kind === "string") return decodeMysqlString(token.text);
  return token.text;
}

/** An SQL string literal in standard (SQLite) syntax. */
export function sqliteStringLiteral(value: string): string {
  return "'" + value.replace(/'/g, "''") + "'";
}
