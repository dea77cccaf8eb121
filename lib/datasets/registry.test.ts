import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync, cpSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { fetchIntercode } from "./fetch";
import { sharedIntercodeDir } from "./paths";
import { findTask, getTask, listDatasets, loadDataset } from "./registry";

const shared = sharedIntercodeDir();
const dataDir = mkdtempSync(path.join(os.tmpdir(), "ic-registry-"));
const saved = process.env.IC_DATA_DIR;

beforeAll(async () => {
  process.env.IC_DATA_DIR = dataDir;
  await fetchIntercode({ from: shared, convert: false });
});
afterAll(() => {
  if (saved === undefined) delete process.env.IC_DATA_DIR;
  else process.env.IC_DATA_DIR = saved;
});

describe("dataset registry", () => {
  it("lists demo and fetched InterCode sets with task counts", () => {
    const byName = Object.fromEntries(listDatasets().map((d) => [d.name, d]));
    expect(byName["nl2bash-fs1"]).toMatchObject({ env: "bash", tasks: 60, source: "intercode" });
    expect(byName["spider-dev"]).toMatchObject({ env: "sql", tasks: 1034 });
    expect(byName.mbpp).toMatchObject({ env: "python", tasks: 974 });
    expect(byName.ctf).toMatchObject({ env: "ctf", tasks: 100 });
    expect(byName["demo-python"]!.tasks).toBeGreaterThanOrEqual(20);
  });

  it("gets tasks by dataset and id, and resolves task references", () => {
    expect(getTask("mbpp", "11")).toMatchObject({ env: "python", id: "11" });
    expect(findTask("bash", "nl2bash-fs3/7")).toMatchObject({ dataset: "nl2bash-fs3", id: "7", fs: "fs3" });
    expect(findTask("python", "reverse-words")).toMatchObject({ dataset: "demo-python" });
    expect(() => getTask("mbpp", "99999")).toThrow(NotFoundError);
    expect(() => findTask("sql", "nl2bash-fs1/0")).toThrow(BadInputError);
    expect(() => loadDataset("no-such-set")).toThrow(NotFoundError);
  });

  it("caches parsed files until they change", () => {
    const a = loadDataset("ctf");
    expect(loadDataset("ctf")).toBe(a);
  });

  it("loads a task file by path", () => {
    expect(loadDataset(path.join(shared, "nl2bash/nl2bash_fs_4.json"))).toHaveLength(27);
  });
});

describe("fetch intercode", () => {
  it("verifies before replacing: a malformed source leaves the fetched sets untouched", async () => {
    const bad = mkdtempSync(path.join(os.tmpdir(), "ic-bad-source-"));
    cpSync(shared, bad, { recursive: true, filter: (p) => !p.includes("results-sample") });
    const mbpp = path.join(bad, "python/mbpp/ic_mbpp.json");
    const records = JSON.parse(readFileSync(mbpp, "utf8")) as Record<string, unknown>[];
    delete records[3]!.tests;
    writeFileSync(mbpp, JSON.stringify(records));
    const before = readFileSync(path.join(dataDir, "datasets/intercode/python/mbpp/ic_mbpp.json"), "utf8");
    await expect(fetchIntercode({ from: bad, convert: false })).rejects.toThrow(/record 3: field tests/);
    expect(readFileSync(path.join(dataDir, "datasets/intercode/python/mbpp/ic_mbpp.json"), "utf8")).toBe(before);
    expect(listDatasets().find((d) => d.name === "mbpp")?.tasks).toBe(974);
  });

  it("fails on a missing file without touching anything", async () => {
    const partial = mkdtempSync(path.join(os.tmpdir(), "ic-partial-"));
    mkdirSync(path.join(partial, "nl2bash"));
    writeFileSync(path.join(partial, "nl2bash/nl2bash_fs_1.json"), "[]");
    await expect(fetchIntercode({ from: partial, convert: false })).rejects.toThrow();
    expect(existsSync(path.join(dataDir, "datasets/intercode/ctf/ic_ctf.json"))).toBe(true);
  });
});
