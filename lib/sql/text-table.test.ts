import { describe, expect, it } from "vitest";
import { formatTextTable, sqlCellText, toTextTable, TEXT_TABLE_MAX_ROWS } from "./text-table";

describe("the mysql-style text table", () => {
  it("boxes a result with its column names, numbers right and text left", () => {
    const t = toTextTable(
      ["name", "n"],
      [
        ["Harbour Gate", 12n],
        ["Old Mill Square", null],
      ],
    );
    expect(formatTextTable(t)).toBe(
      [
        "+-----------------+------+",
        "| name            | n    |",
        "+-----------------+------+",
        "| Harbour Gate    |   12 |",
        "| Old Mill Square | NULL |",
        "+-----------------+------+",
        "2 rows in set",
      ].join("\n"),
    );
  });
  it("prints cells as the mysql client does, and an empty result as Empty set", () => {
    expect(sqlCellText({ py: "float", value: 5 })).toBe("5");
    expect(sqlCellText({ py: "decimal", text: "12.50" })).toBe("12.50");
    expect(sqlCellText({ py: "date", year: 2024, month: 3, day: 7 })).toBe("2024-03-07");
    expect(sqlCellText({ py: "datetime", year: 2024, month: 3, day: 7, hour: 9, minute: 5, second: 0 })).toBe("2024-03-07 09:05:00");
    expect(formatTextTable(toTextTable(["a"], []))).toBe("Empty set");
    expect(formatTextTable(toTextTable(["a"], [["x\ny"]]))).toContain("| x\\ny |");
  });
  it("caps the rows it draws and says so", () => {
    const rows = Array.from({ length: TEXT_TABLE_MAX_ROWS + 5 }, (_, i) => [i]);
    const t = toTextTable(["i"], rows);
    expect(t.rows).toHaveLength(TEXT_TABLE_MAX_ROWS);
    expect(formatTextTable(t)).toMatch(new RegExp(`${TEXT_TABLE_MAX_ROWS} rows in set \\(more rows were left out\\)$`));
  });
});
