import { decodeMysqlString, identName, significant, splitStatements, sqliteStringLiteral, type Token } from "./lexer";

/**
 * Turns an action written for MySQL (InterCode's dialect) into what the SQLite engine runs:
 * MySQL string literals ("..." and backslash escapes) become SQLite literals, MySQL's SHOW /
 * DESCRIBE / USE are emulated, and statements that could reach beyond the episode's own
 * in-memory database (ATTACH, VACUUM INTO, load_extension, most PRAGMAs) are refused.
 */

export type PlannedStatement =
  | { kind: "sql"; sql: string; original: string }
  | { kind: "describe"; table: string; original: string }
  | { kind: "use"; database: string; original: string }
  | { kind: "show-databases"; original: string };

export type Plan = { ok: true; statements: PlannedStatement[] } | { ok: false; error: string };

/** PRAGMAs an agent may run: read-only schema questions about its own database. */
const READ_ONLY_PRAGMAS = new Set(["table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list", "collation_list"]);

const BLOCKED_WORDS = new Set(["ATTACH", "DETACH", "VACUUM"]);
const BLOCKED_FUNCTIONS = new Set(["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"]);

const MYSQL_NEAR_CHARS = 80;

function upper(t: Token | undefined): string {
  return t ? t.text.toUpperCase() : "";
}

/** Rewrites one statement's tokens into SQLite text. */
function rewrite(tokens: Token[]): string {
  let out = "";
  for (const t of tokens) {
    if (t.kind === "string" || t.kind === "dqstring") out += sqliteStringLiteral(decodeMysqlString(t.text));
    else if (t.kind === "exec-comment")
      out +=
        " " +
        t.text
          .slice(3)
          .replace(/^\d{5,6}/, "")
          .replace(/\*\/$/, "") +
        " ";
    else if (t.kind === "comment") out += t.text.startsWith("/*") ? " " : t.text.startsWith("#") ? "" : t.text;
    else out += t.text;
  }
  return out.trim();
}

function blocked(sig: Token[]): string | null {
  for (let i = 0; i < sig.length; i++) {
    const t = sig[i];
    if (t.kind !== "word") continue;
    const w = t.text.toUpperCase();
    if (BLOCKED_WORDS.has(w)) return `${w} is not allowed: an episode can only use its own database`;
    if (BLOCKED_FUNCTIONS.has(t.text.toLowerCase()) && sig[i + 1]?.text === "(") {
      return `${t.text.toLowerCase()}() is not allowed: an episode cannot reach the host's files`;
    }
    if (w === "PRAGMA") {
      let k = i + 1;
      if (sig[k + 1]?.text === ".") k += 2; // schema.pragma
      const name = sig[k]?.text.toLowerCase() ?? "";
      const assigns = sig[k + 1]?.text === "=";
      if (!READ_ONLY_PRAGMAS.has(name) || assigns) return `PRAGMA ${name} is not allowed: only read-only schema PRAGMAs are`;
    }
  }
  return null;
}

/** Plans the statements of one action for SQLite. */
export function planForSqlite(action: string): Plan {
  const stmts = splitStatements(action);
  if (stmts.length === 0) return { ok: false, error: "Query was empty" };
  const out: PlannedStatement[] = [];
  for (const s of stmts) {
    const sig = significant(s.tokens).filter((t) => t.kind !== "exec-comment" || t.text.length > 4);
    const why = blocked(sig);
    if (why) return { ok: false, error: why };
    const w0 = upper(sig[0]);
    const w1 = upper(sig[1]);
    const original = s.text;
    if (w0 === "SHOW" && (w1 === "TABLES" || (w1 === "FULL" && upper(sig[2]) === "TABLES"))) {
      const like = sig.findIndex((t) => upper(t) === "LIKE");
      const filter = like >= 0 && sig[like + 1] ? ` AND lower(name) LIKE ${sqliteStringLiteral(decodeMysqlString(sig[like + 1].text))}` : "";
      const full = w1 === "FULL" ? ", 'BASE TABLE' AS Table_type" : "";
      out.push({
        kind: "sql",
        original,
        sql: `SELECT lower(name) AS Tables_in_db${full} FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'${filter} ORDER BY lower(name)`,
      });
    } else if (w0 === "SHOW" && (w1 === "DATABASES" || w1 === "SCHEMAS")) {
      out.push({ kind: "show-databases", original });
    } else if (w0 === "SHOW" && (w1 === "COLUMNS" || w1 === "FIELDS" || (w1 === "FULL" && /^(COLUMNS|FIELDS)$/.test(upper(sig[2]))))) {
      const from = sig.findIndex((t) => upper(t) === "FROM" || upper(t) === "IN");
      if (from < 0 || !sig[from + 1]) return { ok: false, error: syntaxError(original, sig[sig.length - 1]?.start ?? 0, s.start) };
      out.push({ kind: "describe", table: identName(sig[from + 1]), original });
    } else if (w0 === "SHOW" && w1 === "CREATE" && upper(sig[2]) === "TABLE" && sig[3]) {
      const name = identName(sig[3]);
      out.push({
        kind: "sql",
        original,
        sql: `SELECT lower(name) AS "Table", sql AS "Create Table" FROM sqlite_schema WHERE type = 'table' AND lower(name) = ${sqliteStringLiteral(name.toLowerCase())}`,
      });
    } else if (
      (w0 === "DESC" || w0 === "DESCRIBE" || w0 === "EXPLAIN") &&
      sig[1] &&
      (sig.length === 2 || sig.length === 3) &&
      (sig[1].kind === "word" || sig[1].kind === "bquote") &&
      !/^(SELECT|WITH|INSERT|UPDATE|DELETE|QUERY)$/i.test(sig[1].text)
    ) {
      out.push({ kind: "describe", table: identName(sig[1]), original });
    } else if (w0 === "USE" && sig[1]) {
      out.push({ kind: "use", database: identName(sig[1]), original });
    } else {
      out.push({ kind: "sql", sql: rewrite(s.tokens), original });
    }
  }
  return { ok: true, statements: out };
}

/** MySQL's syntax-error message, quoting the statement from `offset` on (80 characters at most). */
export function syntaxError(statement: string, offset: number, base = 0): string {
  const at = Math.max(0, Math.min(statement.length, offset - base));
  const near = statement.slice(at).slice(0, MYSQL_NEAR_CHARS);
  const line = statement.slice(0, at).split("\n").length;
  return `You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '${near}' at line ${line}`;
}

/**
 * Rewrites an SQLite error message the way MySQL would have worded it, where the two mean the
 * same thing; other messages pass through unchanged.
 */
export function mysqlStyleError(message: string, statement: string, db: string): string {
  let m = /^near "([^"]*)": syntax error$/.exec(message);
  if (m) {
    const tokens = significant(splitStatements(statement)[0]?.tokens ?? []);
    // MySQL knows SHOW: its complaint is about what follows an unknown SHOW.
    if (tokens[0]?.text.toUpperCase() === "SHOW" && tokens[1]) return syntaxError(statement, tokens[1].start);
    // SQLite names the token but not where it is; a repeated token (a second GROUP BY, WHERE
    // after GROUP BY) is most often wrong at its last place, the parser having accepted the others.
    const exact = tokens.filter((t) => t.text === m![1]);
    const loose = exact.length ? exact : tokens.filter((t) => t.text.toLowerCase() === m![1].toLowerCase());
    const hit = loose[loose.length - 1];
    return syntaxError(statement, hit ? hit.start : statement.length);
  }
  if (message === "incomplete input") return syntaxError(statement, statement.length);
  m = /^no such table: (?:main\.)?(.+)$/.exec(message);
  if (m) return `Table '${db}.${m[1]}' doesn't exist`;
  m = /^no such column: (.+)$/.exec(message);
  if (m) return `Unknown column '${m[1]}' in 'field list'`;
  m = /^no such function: (.+)$/.exec(message);
  if (m) return `FUNCTION ${db}.${m[1]} does not exist`;
  m = /^table (\S+) already exists$/.exec(message);
  if (m) return `Table '${m[1]}' already exists`;
  m = /^ambiguous column name: (.+)$/.exec(message);
  if (m) return `Column '${m[1]}' in field list is ambiguous`;
  return message;
}
