import { describe, expect, it } from "vitest";
import { pyReprRows, pyReprRowsConcatenated } from "@/lib/reward/python-repr";
import { columnsFromQuery, parseSqlRows, sqlTableOf } from "@/lib/viewer/sql-table";

describe("parseSqlRows", () => {
  it("reads back what the SQL environment stores, in both of InterCode's shapes", () => {
    const rows = [
      ["Harbour Gate", 3n],
      ['it\'s "x"\n', null],
      [
        { py: "decimal", text: "12.50" },
        { py: "float", value: 5 },
      ],
      [{ py: "date", year: 2020, month: 1, day: 2 }, true],
    ] as const;
    const want = [
      ["Harbour Gate", "3"],
      ['it\'s "x"\n', "NULL"],
      ["12.50", "5.0"],
      ["datetime.date(2020, 1, 2)", "True"],
    ];
    expect(parseSqlRows(pyReprRowsConcatenated(rows))).toEqual(want);
    expect(parseSqlRows(pyReprRows(rows))).toEqual(want);
    expect(parseSqlRows(pyReprRowsConcatenated([["a"], ["b"]]))).toEqual([["a"], ["b"]]);
  });
  it("is null for anything that is not a result set, and no rows for the empty text", () => {
    expect(parseSqlRows("")).toEqual([]);
    expect(parseSqlRows("[]")).toEqual([]);
    expect(parseSqlRows("Error executing query: no such table: x")).toBeNull();
    expect(parseSqlRows("Query OK, 1 row affected")).toBeNull();
    expect(parseSqlRows("('a',)('b'")).toBeNull();
    expect(parseSqlRows("('a',)\n[output truncated]")).toBeNull();
  });
});

describe("columnsFromQuery", () => {
  it("names columns as the MySQL client heads them", () => {
    expect(columnsFromQuery("SELECT name, count(*) AS n FROM city GROUP BY name")).toEqual(["name", "n"]);
    expect(columnsFromQuery("select T1.name, T2.age a, max(x) from t as T1 join u as T2")).toEqual(["name", "a", "max(x)"]);
    expect(columnsFromQuery("SELECT DISTINCT a + b, `weird col` FROM t")).toEqual(["a + b", "weird col"]);
    expect(columnsFromQuery("SELECT CASE WHEN a THEN 1 ELSE 2 END FROM t")).toEqual(["CASE WHEN a THEN 1 ELSE 2 END"]);
    expect(columnsFromQuery("SELECT (SELECT max(y) FROM u), 'x, y' FROM t")).toEqual(["(SELECT max(y) FROM u)", "'x, y'"]);
    expect(columnsFromQuery("use db; select 1")).toEqual(["1"]);
  });
  it("cannot tell for * or without a select", () => {
    expect(columnsFromQuery("SELECT * FROM t")).toBeNull();
    expect(columnsFromQuery("SELECT t.* FROM t")).toBeNull();
    expect(columnsFromQuery("show tables")).toBeNull();
  });
});

describe("sqlTableOf", () => {
  it("takes the engine's names, else the query's, else c1..cn", () => {
    const obs = "('a', 1)('b', 2)";
    expect(sqlTableOf(obs, "select * from t", ["name", "n"])).toEqual({
      columns: ["name", "n"],
      rows: [
        ["a", "1"],
        ["b", "2"],
      ],
      columnSource: "engine",
    });
    expect(sqlTableOf(obs, "select x, y from t")?.columns).toEqual(["x", "y"]);
    expect(sqlTableOf(obs, "select * from t")).toMatchObject({ columns: ["c1", "c2"], columnSource: "numbered" });
    expect(sqlTableOf(obs, "select x from t")?.columns).toEqual(["c1", "c2"]);
    expect(sqlTableOf("Error executing query: x", "select 1")).toBeNull();
  });
});
