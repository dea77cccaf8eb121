import "server-only";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { intercodeDataDir } from "@/lib/datasets/paths";
import { BadInputError } from "@/lib/errors";
import { parseMysqlDump, type MysqlColumn, type MysqlDatabase, type MysqlTable } from "./mysql-dump";

/**
 * Converts a MySQL dump (InterCode's Spider databases) into one SQLite file per database, plus
 * `catalog.json`: the MySQL schema of every table (types, keys, defaults), which the SQLite
 * engine uses to answer SHOW TABLES / DESCRIBE and to show values with their MySQL types.
 */

export type SqliteAffinity = "INTEGER" | "REAL" | "NUMERIC" | "TEXT" | "BLOB";

/** How text columns with a case-insensitive MySQL collation (`*_ci`) are declared in SQLite. */
export type CollationMode = "nocase" | "binary";

/** The SQLite affinity that stores a MySQL type's values as MySQL would compare and sort them. */
export function sqliteAffinityFor(mysqlType: string): SqliteAffinity {
  const base = mysqlType.toLowerCase().match(/^[a-z]+/)?.[0] ?? "";
  switch (base) {
    case "tinyint":
    case "smallint":
    case "mediumint":
    case "int":
    case "integer":
    case "bigint":
    case "bool":
    case "boolean":
    case "bit":
    case "year":
    case "serial":
      return "INTEGER";
    case "float":
    case "double":
    case "real":
      return "REAL";
    case "decimal":
    case "numeric":
    case "dec":
    case "fixed":
      return "NUMERIC";
    case "binary":
    case "varbinary":
    case "tinyblob":
    case "blob":
    case "mediumblob":
    case "longblob":
      return "BLOB";
    default:
      // char, varchar, *text, enum, set, json, date, datetime, timestamp, time: text in SQLite.
      return "TEXT";
  }
}

/** The table and column metadata kept beside the SQLite files. */
export interface CatalogTable {
  /** Table name as MySQL with lower_case_table_names=1 shows it (lower case). */
  name: string;
  columns: (MysqlColumn & { key: "PRI" | "UNI" | "MUL" | ""; affinity: SqliteAffinity })[];
  rows: number;
}

export interface Catalog {
  /** sha256 of the dump the files were made from. */
  source: string;
  collation: CollationMode;
  databases: Record<string, { tables: CatalogTable[] }>;
}

export const CATALOG_FILE = "catalog.json";

/** Where the app keeps the converted Spider databases: var/datasets/intercode/spider-sqlite/<db>.sqlite. */
export function spiderSqliteDir(): string {
  return path.join(intercodeDataDir(), "spider-sqlite");
}
const CATALOG_VERSION = 1;

function quoteIdent(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** DESCRIBE's Key column: PRI for primary-key columns, UNI for a one-column unique index, MUL for the first column of any other index. */
function keyOf(table: MysqlTable, column: string): "PRI" | "UNI" | "MUL" | "" {
  const is = (a: string) => a.toLowerCase() === column.toLowerCase();
  if (table.indexes.some((ix) => ix.kind === "primary" && ix.columns.some(is))) return "PRI";
  if (table.indexes.some((ix) => ix.kind === "unique" && ix.columns.length === 1 && is(ix.columns[0]))) return "UNI";
  if (table.indexes.some((ix) => ix.kind !== "primary" && is(ix.columns[0]))) return "MUL";
  return "";
}

function columnSql(c: MysqlColumn, affinity: SqliteAffinity, mode: CollationMode): string {
  let sql = `${quoteIdent(c.name)} ${affinity}`;
  if (!c.nullable) sql += " NOT NULL";
  if (c.defaultValue !== null && !c.autoIncrement) {
    sql += /^current_timestamp/i.test(c.defaultValue) ? " DEFAULT CURRENT_TIMESTAMP" : ` DEFAULT '${c.defaultValue.replace(/'/g, "''")}'`;
  }
  if (affinity === "TEXT" && mode === "nocase" && c.collation && /_ci$/.test(c.collation)) sql += " COLLATE NOCASE";
  return sql;
}

/** CREATE TABLE for SQLite: columns with their affinities, the primary key, unique keys and foreign keys. */
export function createTableSql(table: MysqlTable, mode: CollationMode): string {
  const parts = table.columns.map((c) => columnSql(c, sqliteAffinityFor(c.type), mode));
  const list = (cols: string[]) => cols.map(quoteIdent).join(", ");
  for (const ix of table.indexes) {
    if (ix.kind === "primary") parts.push(`PRIMARY KEY (${list(ix.columns)})`);
    else if (ix.kind === "unique") parts.push(`UNIQUE (${list(ix.columns)})`);
  }
  for (const fk of table.foreignKeys) {
    parts.push(`FOREIGN KEY (${list(fk.columns)}) REFERENCES ${quoteIdent(fk.table.toLowerCase())} (${list(fk.refColumns)})`);
  }
  return `CREATE TABLE ${quoteIdent(table.name.toLowerCase())} (\n  ${parts.join(",\n  ")}\n)`;
}

/** Builds one database in memory and returns the SQLite file image. */
export function buildSqliteDatabase(db: MysqlDatabase, mode: CollationMode): Buffer {
  const sqlite = new Database(":memory:");
  try {
    sqlite.exec("PRAGMA page_size = 4096");
    // Spider's data does not always satisfy its own foreign keys; they are kept as schema only.
    sqlite.exec("PRAGMA foreign_keys = OFF");
    sqlite.transaction(() => {
      for (const table of db.tables) {
        if (table.columns.length === 0) {
          throw new BadInputError(`table ${table.name} has no columns`, `database ${db.name}`);
        }
        sqlite.exec(createTableSql(table, mode));
        for (const ix of table.indexes) {
          if (ix.kind !== "key") continue;
          const name = `${table.name}_${ix.name || ix.columns.join("_")}`.toLowerCase();
          sqlite.exec(`CREATE INDEX ${quoteIdent(name)} ON ${quoteIdent(table.name.toLowerCase())} (${ix.columns.map(quoteIdent).join(", ")})`);
        }
        if (table.rows.length === 0) continue;
        const insert = sqlite.prepare(`INSERT INTO ${quoteIdent(table.name.toLowerCase())} VALUES (${table.columns.map(() => "?").join(", ")})`);
        for (const row of table.rows) {
          // Numbers are bound as written; the column's affinity turns them into INTEGER/REAL/NUMERIC.
          insert.run(row.map((v) => (v === null ? null : typeof v === "string" ? v : v.num)));
        }
      }
    })();
    return sqlite.serialize();
  } finally {
    sqlite.close();
  }
}

/** The catalog entries (MySQL metadata) of a parsed database. */
export function catalogTables(db: MysqlDatabase): CatalogTable[] {
  return db.tables.map((t) => ({
    name: t.name.toLowerCase(),
    columns: t.columns.map((c) => ({ ...c, key: keyOf(t, c.name), affinity: sqliteAffinityFor(c.type) })),
    rows: t.rows.length,
  }));
}

export interface ConvertOptions {
  /** Path of the MySQL dump. */
  dumpPath: string;
  /** Directory that receives `<db>.sqlite` files and `catalog.json`. */
  outDir: string;
  /** Default "nocase": `_ci` text columns compare case-insensitively, as in InterCode's MySQL. */
  collation?: CollationMode;
}

export interface ConvertResult {
  outDir: string;
  databases: { name: string; file: string; tables: number; rows: number }[];
  ms: number;
}

/** Converts the dump: one `<db>.sqlite` per database and `catalog.json`, each written atomically. */
export function convertMysqlDump(options: ConvertOptions): ConvertResult {
  const t0 = performance.now();
  const mode = options.collation ?? "nocase";
  let text: string;
  try {
    text = readFileSync(options.dumpPath, "utf8");
  } catch (err) {
    throw new BadInputError(`cannot read the MySQL dump (${(err as Error).message})`, options.dumpPath);
  }
  const dbs = parseMysqlDump(text);
  if (dbs.length === 0) throw new BadInputError("no CREATE DATABASE / USE statement found", options.dumpPath);
  mkdirSync(options.outDir, { recursive: true });
  const catalog: Catalog & { version: number } = {
    version: CATALOG_VERSION,
    source: createHash("sha256").update(text).digest("hex"),
    collation: mode,
    databases: {},
  };
  const out: ConvertResult["databases"] = [];
  for (const db of dbs) {
    if (!/^[A-Za-z0-9_]+$/.test(db.name)) throw new BadInputError(`unsafe database name ${JSON.stringify(db.name)}`, options.dumpPath);
    const file = path.join(options.outDir, `${db.name}.sqlite`);
    writeAtomic(file, buildSqliteDatabase(db, mode));
    catalog.databases[db.name] = { tables: catalogTables(db) };
    out.push({ name: db.name, file, tables: db.tables.length, rows: db.tables.reduce((n, t) => n + t.rows.length, 0) });
  }
  writeAtomic(path.join(options.outDir, CATALOG_FILE), JSON.stringify(catalog, null, 1) + "\n");
  return { outDir: options.outDir, databases: out, ms: performance.now() - t0 };
}

function writeAtomic(file: string, data: Buffer | string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** Reads `catalog.json` from a converted directory, or null when there is none. */
export function readCatalog(outDir: string): Catalog | null {
  const file = path.join(outDir, CATALOG_FILE);
  if (!existsSync(file)) return null;
  const raw = JSON.parse(readFileSync(file, "utf8")) as Catalog & { version?: number };
  return raw.version === CATALOG_VERSION ? raw : null;
}

/**
 * Converts the dump into `outDir` unless `outDir` already holds a conversion of the same dump
 * with the same collation mode. Returns the catalog.
 */
export function ensureConverted(options: ConvertOptions): Catalog {
  const existing = readCatalog(options.outDir);
  const mode = options.collation ?? "nocase";
  if (existing && existing.collation === mode) {
    const hash = createHash("sha256").update(readFileSync(options.dumpPath)).digest("hex");
    if (hash === existing.source) return existing;
  }
  convertMysqlDump(options);
  const fresh = readCatalog(options.outDir);
  if (!fresh) throw new BadInputError("conversion wrote no catalog", options.outDir);
  return fresh;
}
