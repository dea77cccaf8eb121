import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BadInputError } from "@/lib/errors";
import { functionNameFromTests, parseDatasetFile } from "./formats";
import { sharedIntercodeDir } from "./paths";

const shared = sharedIntercodeDir();
const tmp = mkdtempSync(path.join(os.tmpdir(), "ic-formats-"));

function write(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}

function errorOf(fn: () => unknown): BadInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BadInputError);
    return err as BadInputError;
  }
  throw new Error("expected a BadInputError");
}

describe("InterCode task files", () => {
  it("reads the four NL2Bash files: 200 tasks, ids are indexes, file system from the name", () => {
    const counts = [1, 2, 3, 4].map((n) => parseDatasetFile(path.join(shared, `nl2bash/nl2bash_fs_${n}.json`), { dataset: `nl2bash-fs${n}` }));
    expect(counts.map((c) => c.length)).toEqual([60, 53, 60, 27]);
    const t = counts[1]![5]!;
    expect(t).toMatchObject({ env: "bash", dataset: "nl2bash-fs2", id: "5", index: 5, fs: "fs2" });
  });

  it("reads Spider dev, MBPP and CTF with their ids", () => {
    const spider = parseDatasetFile(path.join(shared, "sql/spider/ic_spider_dev.json"), { dataset: "spider-dev" });
    expect(spider).toHaveLength(1034);
    expect(spider[0]).toMatchObject({ env: "sql", id: "0", db: "poker_player" });
    expect(Object.keys((spider[0] as { tables: object }).tables).length).toBeGreaterThan(0);
    const mbpp = parseDatasetFile(path.join(shared, "python/mbpp/ic_mbpp.json"), { dataset: "mbpp" });
    expect(mbpp).toHaveLength(974);
    // The function every task's tests call is found, and gold defines it.
    for (const t of mbpp) {
      if (t.env !== "python") throw new Error("not python");
      expect(t.gold).toContain(`def ${t.functionName}`);
    }
    const ctf = parseDatasetFile(path.join(shared, "ctf/ic_ctf.json"), { dataset: "ctf" });
    expect(ctf).toHaveLength(100);
    expect(ctf[0]).toMatchObject({ env: "ctf", id: "0" });
  });

  it("names the file, the record and the field of a malformed record", () => {
    const file = write("nl2bash_fs_1.json", [{ query: "ok", gold: "ls" }, { query: "no gold" }]);
    const e = errorOf(() => parseDatasetFile(file, { dataset: "x" }));
    expect(e.where).toBe(`${file}: record 1: field gold`);
    expect(e.message).toContain(file);

    const mbpp = write("ic_mbpp.json", [
      { task_id: 1, query: "q", gold: "def f(): pass", tests: ["assert f() is None"], test_setup_code: "" },
      { task_id: 2, query: "q", gold: "x", tests: "assert 1" },
    ]);
    expect(errorOf(() => parseDatasetFile(mbpp, { dataset: "mbpp" })).where).toBe(`${mbpp}: record 1: field tests`);

    const spider = write("ic_spider_dev.json", [{ db: "d", gold: "SELECT 1", query: "q", hardness: "impossible", db_tables: {} }]);
    expect(errorOf(() => parseDatasetFile(spider, { dataset: "s" })).where).toBe(`${spider}: record 0: field hardness`);
  });

  it("rejects invalid JSON, a non-list, duplicate ids, and an unknown file name", () => {
    expect(errorOf(() => parseDatasetFile(write("ic_ctf.json", "[{"), { dataset: "ctf" })).where).toContain("ic_ctf.json");
    expect(errorOf(() => parseDatasetFile(write("ic_ctf.json", { a: 1 }), { dataset: "ctf" })).message).toContain("list");
    const dup = write("demo-ctf.json", [
      { id: "a", query: "q", gold: "f" },
      { id: "a", query: "q", gold: "g" },
    ]);
    expect(errorOf(() => parseDatasetFile(dup, { dataset: "demo-ctf" })).where).toBe(`${dup}: record 1: field id`);
    expect(() => parseDatasetFile(write("whatever.json", []), { dataset: "w" })).toThrow(BadInputError);
  });

  it("reads demo files as a list or as {env, tasks}, with per-env defaults", () => {
    const py = write("demo-python.json", { env: "python", tasks: [{ id: "t1", query: "q", gold: "def g(x):\n    return x", tests: ["assert g(1) == 1"] }] });
    const [t] = parseDatasetFile(py, { dataset: "demo-python" });
    expect(t).toMatchObject({ env: "python", id: "t1", functionName: "g", setup: "" });
    const bash = write("demo-bash.json", [{ id: 3, query: "q", gold: "ls /testbed" }]);
    expect(parseDatasetFile(bash, { dataset: "demo-bash" })[0]).toMatchObject({ env: "bash", id: "3", fs: "demo" });
    const bad = write("demo-python.json", { env: "python", tasks: [{ id: "t1", query: "q", gold: "x", tests: [] }] });
    expect(errorOf(() => parseDatasetFile(bad, { dataset: "demo-python" })).where).toBe(`${bad}: record 0: field tests`);
  });

  it("finds the function name the tests call", () => {
    expect(functionNameFromTests(["assert math.isclose(area(2), 12.56, rel_tol=0.01)"])).toBe("area");
    expect(functionNameFromTests(["assert set(common([1,2],[2])) == set([2])"])).toBe("common");
    expect(functionNameFromTests(["assert not is_ok(3)"])).toBe("is_ok");
  });
});
