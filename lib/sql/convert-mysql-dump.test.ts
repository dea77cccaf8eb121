import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { BadInputError } from "@/lib/errors";
import { convertMysqlDump, readCatalog, sqliteAffinityFor, type ConvertResult } from "./convert-mysql-dump";
import { decodeMysqlString, splitStatements } from "./lexer";
import { parseMysqlDump } from "./mysql-dump";

const DUMP = path.join(sharedIntercodeDir(), "sql", "spider", "ic_spider_dbs.sql");

/**
 * Counts each database's tables and rows straight from the dump text, without the parser under
 * test: sections start at `USE`, tables at `CREATE TABLE`, and each INSERT holds `),(`-separated tuples.
 */
function countFromText(text: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  let db: Map<string, number> | null = null;
  for (const line of text.split("\n")) {
    let m = /^USE `([^`]+)`;/.exec(line);
    if (m) {
      db = new Map();
      out.set(m[1], db);
      continue;
    }
    m = /^CREATE TABLE `([^`]+)`/.exec(line);
    if (m && db) db.set(m[1].toLowerCase(), 0);
    m = /^INSERT INTO `([^`]+)` VALUES (.*);$/.exec(line);
    if (m && db) db.set(m[1].toLowerCase(), (db.get(m[1].toLowerCase()) ?? 0) + m[2].split("),(").length);
  }
  return out;
}

describe("MySQL dump → SQLite conversion", () => {
  let dir: string;
  let result: ConvertResult;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ic-spider-"));
    result = convertMysqlDump({ dumpPath: DUMP, outDir: path.join(dir, "a") });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes one SQLite file per database with every table and row of the dump", () => {
    const expected = countFromText(readFileSync(DUMP, "utf8"));
    expect(result.databases.map((d) => d.name).sort()).toEqual([...expected.keys()].sort());
    expect(result.databases).toHaveLength(20);
    for (const d of result.databases) {
      const db = new Database(d.file, { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all() as string[];
        const want = expected.get(d.name)!;
        expect(tables, d.name).toEqual([...want.keys()].sort());
        for (const t of tables) {
          const n = db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get();
          expect(n, `${d.name}.${t}`).toBe(want.get(t));
        }
      } finally {
        db.close();
      }
    }
    expect(result.ms).toBeLessThan(10_000);
  });

  it("maps column types to SQLite affinities and decodes MySQL string escapes", () => {
    const world = new Database(path.join(dir, "a", "world_1.sqlite"), { readonly: true });
    const row = world.prepare("SELECT typeof(SurfaceArea) a, typeof(Population) b, typeof(Name) c, typeof(IndepYear) d FROM country WHERE Code = 'ABW'").get();
    expect(row).toEqual({ a: "real", b: "integer", c: "text", d: "null" });
    expect(world.prepare("SELECT count(*) FROM city").pluck().get()).toBe(4079);
    world.close();
    const singer = new Database(path.join(dir, "a", "singer.sqlite"), { readonly: true });
    expect(singer.prepare("SELECT Title FROM song WHERE Song_ID = 1").pluck().get()).toBe("Do They Know It's Christmas");
    singer.close();
    const dogs = new Database(path.join(dir, "a", "dog_kennels.sqlite"), { readonly: true });
    const street = dogs.prepare("SELECT street FROM professionals WHERE professional_id = 1").pluck().get() as string;
    expect(street).toContain("\n");
    expect(street).not.toContain("\\n");
    expect(dogs.prepare("SELECT typeof(cost_of_treatment) FROM treatments LIMIT 1").pluck().get()).toBe("integer"); // decimal 567.0000 → NUMERIC
    dogs.close();
    expect(["int", "varchar(255)", "double", "float(10,2)", "decimal(19,4)", "datetime", "text", "blob"].map(sqliteAffinityFor)).toEqual([
      "INTEGER",
      "TEXT",
      "REAL",
      "REAL",
      "NUMERIC",
      "TEXT",
      "TEXT",
      "BLOB",
    ]);
  });

  it("keeps MySQL's schema in catalog.json for DESCRIBE", () => {
    const catalog = readCatalog(path.join(dir, "a"))!;
    const country = catalog.databases.world_1.tables.find((t) => t.name === "country")!;
    expect(country.columns[0]).toMatchObject({ name: "Code", type: "char(3)", nullable: false, key: "PRI", defaultValue: "" });
    const city = catalog.databases.world_1.tables.find((t) => t.name === "city")!;
    expect(city.columns.find((c) => c.name === "CountryCode")?.key).toBe("MUL");
    expect(city.columns[0].autoIncrement).toBe(true);
  });

  it("is deterministic, and _ci columns compare without case only in nocase mode", () => {
    const again = convertMysqlDump({ dumpPath: DUMP, outDir: path.join(dir, "b") });
    for (const d of again.databases) expect(readFileSync(d.file).equals(readFileSync(path.join(dir, "a", `${d.name}.sqlite`))), d.name).toBe(true);
    const binary = convertMysqlDump({ dumpPath: DUMP, outDir: path.join(dir, "c"), collation: "binary" });
    const q = "SELECT count(*) FROM country WHERE Continent = 'europe'";
    const ci = new Database(path.join(dir, "a", "world_1.sqlite"), { readonly: true });
    const cs = new Database(binary.databases.find((d) => d.name === "world_1")!.file, { readonly: true });
    expect(ci.prepare(q).pluck().get()).toBe(46);
    expect(cs.prepare(q).pluck().get()).toBe(0);
    ci.close();
    cs.close();
  });
});

describe("MySQL lexer and dump parser", () => {
  it("splits at semicolons outside quotes and comments", () => {
    const s = splitStatements("select ';' ; -- a; comment\nselect \"x;\" # another;\n; /*; */ select `a;b` from t;;");
    expect(s.map((x) => x.text)).toEqual(["select ';'", 'select "x;" # another;', "select `a;b` from t"]);
  });

  it("decodes MySQL string escapes", () => {
    expect(decodeMysqlString("'It\\'s'")).toBe("It's");
    expect(decodeMysqlString("'a''b'")).toBe("a'b");
    expect(decodeMysqlString('"say \\"hi\\""')).toBe('say "hi"');
    expect(decodeMysqlString("'x\\ny\\tz\\\\'")).toBe("x\ny\tz\\");
    expect(decodeMysqlString("'50\\%'")).toBe("50\\%");
  });

  it("names the line of a malformed statement", () => {
    const bad = "USE `d`;\nCREATE TABLE `t` (\n  `a` int\n);\nINSERT INTO `t` VALUES (1,2);\n";
    expect(() => parseMysqlDump(bad)).toThrow(BadInputError);
    expect(() => parseMysqlDump(bad)).toThrow(/line 5.*2 values for 1 columns/);
  });
});
