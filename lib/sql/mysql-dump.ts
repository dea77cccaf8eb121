import { BadInputError } from "@/lib/errors";
import { decodeMysqlString, identName, significant, splitStatements, type Token } from "./lexer";

/**
 * A parser for mysqldump output (CREATE DATABASE / USE / CREATE TABLE / INSERT ... VALUES),
 * the shape of InterCode's Spider dump. It reads the schema and the rows; everything else
 * (SET, LOCK TABLES, GRANT, executable comments) is skipped.
 */

/** One column as MySQL declared it, with what `DESCRIBE` shows. */
export interface MysqlColumn {
  name: string;
  /** The type as written, lower case: `int`, `varchar(255)`, `float(10,2)`, `decimal(19,4)`. */
  type: string;
  nullable: boolean;
  /** The default as DESCRIBE shows it (a string), or null for none / DEFAULT NULL. */
  defaultValue: string | null;
  autoIncrement: boolean;
  /** Column collation (explicit, or the table's); null for non-text types. */
  collation: string | null;
}

export interface MysqlIndex {
  name: string;
  kind: "primary" | "unique" | "key";
  columns: string[];
}

export interface MysqlForeignKey {
  columns: string[];
  table: string;
  refColumns: string[];
}

/** A dumped row value: NULL, a number as written (kept as text for exactness), or a decoded string. */
export type DumpValue = null | { num: string } | string;

export interface MysqlTable {
  name: string;
  columns: MysqlColumn[];
  indexes: MysqlIndex[];
  foreignKeys: MysqlForeignKey[];
  /** Default collation of the table (COLLATE=...). */
  collation: string | null;
  rows: DumpValue[][];
}

export interface MysqlDatabase {
  name: string;
  tables: MysqlTable[];
}

const TEXT_TYPES = /^(char|varchar|tinytext|text|mediumtext|longtext|enum|set)\b/;

function fail(message: string, line: number): never {
  throw new BadInputError(message, `MySQL dump, line ${line}`);
}

/**
 * Reads the databases of a mysqldump script. Statements before any CREATE DATABASE / USE go to
 * `defaultDatabase` when it is given (a single-database script such as the demo sets).
 */
export function parseMysqlDump(src: string, defaultDatabase?: string): MysqlDatabase[] {
  const dbs: MysqlDatabase[] = [];
  const byName = new Map<string, MysqlDatabase>();
  let current: MysqlDatabase | null = null;
  const lineOf = (offset: number) => src.slice(0, offset).split("\n").length;
  const useDb = (name: string) => {
    let db = byName.get(name.toLowerCase());
    if (!db) {
      db = { name, tables: [] };
      byName.set(name.toLowerCase(), db);
      dbs.push(db);
    }
    current = db;
  };
  if (defaultDatabase) useDb(defaultDatabase);
  for (const stmt of splitStatements(src)) {
    const toks = significant(stmt.tokens);
    if (toks.length === 0) continue;
    const kw = toks.slice(0, 3).map((t) => t.text.toUpperCase());
    if (kw[0] === "CREATE" && (kw[1] === "DATABASE" || kw[1] === "SCHEMA")) {
      let i = 2;
      if (toks[i]?.text.toUpperCase() === "IF") i += 3; // IF NOT EXISTS
      if (!toks[i]) fail("CREATE DATABASE without a name", lineOf(stmt.start));
      useDb(identName(toks[i]));
    } else if (kw[0] === "USE") {
      if (!toks[1]) fail("USE without a name", lineOf(stmt.start));
      useDb(identName(toks[1]));
    } else if (kw[0] === "CREATE" && kw[1] === "TABLE") {
      if (!current) fail("CREATE TABLE before any database", lineOf(stmt.start));
      const table = parseCreateTable(toks, lineOf(stmt.start));
      const db: MysqlDatabase = current;
      db.tables = db.tables.filter((t) => t.name.toLowerCase() !== table.name.toLowerCase());
      db.tables.push(table);
    } else if (kw[0] === "INSERT") {
      if (!current) fail("INSERT before any database", lineOf(stmt.start));
      parseInsert(current, toks, lineOf(stmt.start));
    }
  }
  return dbs;
}

/** Splits the tokens between a pair of parentheses at top-level commas. */
function splitTopLevel(toks: Token[], open: number, line: number): { parts: Token[][]; end: number } {
  const parts: Token[][] = [];
  let depth = 0;
  let cur: Token[] = [];
  for (let i = open; i < toks.length; i++) {
    const t = toks[i];
    if (t.text === "(") {
      depth++;
      if (depth === 1) continue;
    } else if (t.text === ")") {
      depth--;
      if (depth === 0) {
        parts.push(cur);
        return { parts, end: i };
      }
    } else if (t.text === "," && depth === 1) {
      parts.push(cur);
      cur = [];
      continue;
    }
    cur.push(t);
  }
  fail("unbalanced parentheses", line);
}

/** `(a, b(255))` → ["a", "b"] (prefix lengths dropped). */
function columnList(toks: Token[], from: number, line: number): { names: string[]; end: number } {
  const { parts, end } = splitTopLevel(toks, from, line);
  return { names: parts.map((p) => identName(p[0])), end };
}

function parseCreateTable(toks: Token[], line: number): MysqlTable {
  let i = 2;
  if (toks[i]?.text.toUpperCase() === "IF") i += 3;
  const name = identName(toks[i]);
  const open = toks.findIndex((t, k) => k > i && t.text === "(");
  if (open < 0) fail(`CREATE TABLE ${name} without a column list`, line);
  const { parts, end } = splitTopLevel(toks, open, line);
  const table: MysqlTable = { name, columns: [], indexes: [], foreignKeys: [], collation: null, rows: [] };
  // Table options after the closing parenthesis: COLLATE=x / DEFAULT CHARSET=...
  for (let k = end + 1; k < toks.length; k++) {
    if (toks[k].text.toUpperCase() === "COLLATE") {
      const v = toks[k + 1]?.text === "=" ? toks[k + 2] : toks[k + 1];
      if (v) table.collation = v.text.toLowerCase();
    }
  }
  for (const part of parts) {
    if (part.length === 0) continue;
    const head = part[0].text.toUpperCase();
    if (part[0].kind === "word" && (head === "PRIMARY" || head === "UNIQUE" || head === "KEY" || head === "INDEX")) {
      const open = part.findIndex((t) => t.text === "(");
      const kind = head === "PRIMARY" ? "primary" : head === "UNIQUE" ? "unique" : "key";
      const nameTok = part.slice(1, open).find((t) => t.kind === "bquote" || (t.kind === "word" && !/^(KEY|INDEX)$/i.test(t.text)));
      table.indexes.push({ name: kind === "primary" ? "PRIMARY" : nameTok ? identName(nameTok) : "", kind, columns: columnList(part, open, line).names });
    } else if (part[0].kind === "word" && (head === "CONSTRAINT" || head === "FOREIGN")) {
      const fk = part.findIndex((t) => t.text.toUpperCase() === "FOREIGN");
      if (fk < 0) continue; // CHECK constraints are not carried over
      const open = part.findIndex((t, k) => k > fk && t.text === "(");
      const cols = columnList(part, open, line);
      const ref = part.findIndex((t, k) => k > cols.end && t.text.toUpperCase() === "REFERENCES");
      const refOpen = part.findIndex((t, k) => k > ref && t.text === "(");
      table.foreignKeys.push({ columns: cols.names, table: identName(part[ref + 1]), refColumns: columnList(part, refOpen, line).names });
    } else if (part[0].kind === "word" && (head === "FULLTEXT" || head === "SPATIAL" || head === "CHECK")) {
      // Full-text and spatial indexes and checks do not change what a query returns: not modelled.
    } else {
      table.columns.push(parseColumn(part, table, line));
    }
  }
  for (const c of table.columns) if (c.collation === null && TEXT_TYPES.test(c.type)) c.collation = table.collation;
  return table;
}

function parseColumn(part: Token[], table: MysqlTable, line: number): MysqlColumn {
  const name = identName(part[0]);
  // The type: a word, optionally (args), optionally `unsigned`/`zerofill`.
  let k = 1;
  let type = part[k]?.text.toLowerCase() ?? fail(`column ${name} has no type`, line);
  k++;
  if (part[k]?.text === "(") {
    let depth = 0;
    for (; k < part.length; k++) {
      const t = part[k];
      type += t.kind === "string" ? t.text : t.text.toLowerCase();
      if (t.text === "(") depth++;
      else if (t.text === ")" && --depth === 0) {
        k++;
        break;
      }
    }
  }
  while (part[k] && /^(unsigned|zerofill)$/i.test(part[k].text)) type += " " + part[k++].text.toLowerCase();
  const col: MysqlColumn = { name, type, nullable: true, defaultValue: null, autoIncrement: false, collation: null };
  for (; k < part.length; k++) {
    const w = part[k].text.toUpperCase();
    if (w === "NOT" && part[k + 1]?.text.toUpperCase() === "NULL") {
      col.nullable = false;
      k++;
    } else if (w === "DEFAULT") {
      const v = part[++k];
      if (!v) break;
      if (v.kind === "string" || v.kind === "dqstring") col.defaultValue = decodeMysqlString(v.text);
      else if (v.text.toUpperCase() === "NULL") col.defaultValue = null;
      else col.defaultValue = v.text;
    } else if (w === "AUTO_INCREMENT") col.autoIncrement = true;
    else if (w === "COLLATE") col.collation = part[++k]?.text.toLowerCase() ?? null;
    else if (w === "PRIMARY" && part[k + 1]?.text.toUpperCase() === "KEY") {
      table.indexes.push({ name: "PRIMARY", kind: "primary", columns: [name] });
      k++;
    } else if (w === "UNIQUE") table.indexes.push({ name, kind: "unique", columns: [name] });
  }
  return col;
}

function parseInsert(db: MysqlDatabase, toks: Token[], line: number): void {
  let i = 1;
  while (toks[i] && /^(LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE|INTO)$/i.test(toks[i].text)) i++;
  const name = identName(toks[i]);
  const table = db.tables.find((t) => t.name.toLowerCase() === name.toLowerCase());
  if (!table) fail(`INSERT into unknown table ${name}`, line);
  i++;
  let order: number[] | null = null;
  if (toks[i]?.text === "(") {
    const cols = columnList(toks, i, line);
    order = cols.names.map((c) => {
      const idx = table.columns.findIndex((x) => x.name.toLowerCase() === c.toLowerCase());
      if (idx < 0) fail(`INSERT into ${name}: unknown column ${c}`, line);
      return idx;
    });
    i = cols.end + 1;
  }
  if (!/^VALUES?$/i.test(toks[i]?.text ?? "")) fail(`INSERT into ${name}: only INSERT ... VALUES is supported`, line);
  i++;
  while (i < toks.length) {
    if (toks[i].text === ",") {
      i++;
      continue;
    }
    if (toks[i].text !== "(") fail(`INSERT into ${name}: expected '(' but found ${toks[i].text}`, line);
    const { parts, end } = splitTopLevel(toks, i, line);
    const values = parts.map((p) => dumpValue(p, name, line));
    if (order) {
      const row: DumpValue[] = table.columns.map(() => null);
      for (const [j, idx] of order.entries()) row[idx] = values[j];
      table.rows.push(row);
    } else {
      if (values.length !== table.columns.length) fail(`INSERT into ${name}: ${values.length} values for ${table.columns.length} columns`, line);
      table.rows.push(values);
    }
    i = end + 1;
  }
}

function dumpValue(p: Token[], table: string, line: number): DumpValue {
  if (p.length === 1) {
    const t = p[0];
    if (t.kind === "string" || t.kind === "dqstring") return decodeMysqlString(t.text);
    if (t.kind === "number") return { num: t.text };
    if (t.kind === "word" && t.text.toUpperCase() === "NULL") return null;
    if (t.kind === "word" && /^0x[0-9a-f]*$/i.test(t.text)) return Buffer.from(t.text.slice(2), "hex").toString("latin1");
  }
  if (p.length === 2 && p[0].text === "-" && p[1].kind === "number") return { num: "-" + p[1].text };
  if (p.length === 2 && p[0].kind === "word" && /^_(binary|utf8mb4|utf8|latin1)$/i.test(p[0].text) && p[1].kind === "string") {
    return decodeMysqlString(p[1].text);
  }
  return fail(`INSERT into ${table}: unsupported value ${p.map((t) => t.text).join("")}`, line);
}
