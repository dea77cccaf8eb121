/**
 * Bad input: hostile task files for the dataset loader, hostile trajectory files for the
 * importer, malformed websocket messages, oversized actions, path tricks in task references,
 * and property-based tests over the action parser and the websocket message parser. Each must
 * be refused with an error that names what was wrong, and nothing stored may change.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { recordFigure } from "./figures";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-hardening-badinput-"));
process.env.IC_DB = path.join(dir, "studio.db");
const { parseDatasetFile } = await import("@/lib/datasets/formats");
const { findTask, getTask, loadDataset } = await import("@/lib/datasets/registry");
const { importLogText } = await import("@/lib/trajectories/import");
const { getRawDb, closeRawDb } = await import("@/lib/db/sqlite");
const { closeStore } = await import("@/lib/db/client");
const { parseAction } = await import("@/lib/agent/parse-action");
const { parseClientMessage, MAX_ACTION_BYTES } = await import("@/lib/live/protocol");
const { parseTaskRef } = await import("@/lib/tasks/task-ref");
const { createEnvironment } = await import("@/lib/env");
const { StudioError } = await import("@/lib/errors");

afterAll(async () => {
  await closeStore().catch(() => {});
  closeRawDb();
  fs.rmSync(dir, { recursive: true, force: true });
});

let tried = 0;
const failures: string[] = [];
/** Counts one hostile input; `problem` is null when it was refused as it must be. */
function judge(what: string, problem: string | null) {
  tried++;
  if (problem) failures.push(`${what}: ${problem}`);
}

/** The stored episodes and turns, as a hash (anything stored changing changes it). */
function storeHash(): string {
  const db = getRawDb();
  const h = createHash("sha256");
  for (const t of ["Episode", "Turn"]) for (const row of db.prepare(`SELECT * FROM "${t}" ORDER BY id`).all()) h.update(JSON.stringify(row));
  return h.digest("hex");
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const HOSTILE_JSON: [string, string][] = [
  ["empty file", ""],
  ["truncated JSON", '[{"query": "list files", "gold": "ls'],
  ["not JSON", "\u0000\u0001binary\xff"],
  ["a number", "42"],
  ["wrong types", '[{"query": 7, "gold": ["ls"], "id": {"x": 1}}]'],
  ["missing fields", "[{}]"],
  ["deeply nested", deep(200_000)],
  ["deeply nested object", '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000)],
  ["huge string", JSON.stringify([{ query: "x".repeat(20 * 1024 * 1024), gold: "ls" }])],
  ["unknown environment", '[{"env": "cobol", "query": "q", "gold": "g", "id": "1"}]'],
  ["prototype keys", '[{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}, "query": "q"}]'],
];

/**
 * Inputs a loader may accept: a record whose "env" field its format ignores (nl2bash files are
 * bash whatever a record says), and a huge but well-formed string, loaded intact (the loaders set
 * no length limit; the gap is named in the hardening report).
 */
function acceptable(format: string, label: string, tasks: unknown[]): boolean {
  if (label === "prototype keys") return tasks.length === 0;
  if (label === "unknown environment") return format !== "demo" && (tasks as { env: string }[]).every((t) => t.env !== ("cobol" as string));
  if (label === "huge string") return tasks.length === 1 && (tasks[0] as { query: string }).query.length === 20 * 1024 * 1024;
  return false;
}

describe("hostile task files for every loader format", () => {
  it.each(["nl2bash", "spider", "mbpp", "ctf", "demo"] as const)("%s: each refused with a BadInputError naming the file", (format) => {
    for (const [label, text] of HOSTILE_JSON) {
      const file = path.join(dir, `hostile-${format}-${label.replace(/\W+/g, "-")}.json`);
      fs.writeFileSync(file, text);
      let err: unknown = null;
      let tasks: unknown[] = [];
      try {
        tasks = parseDatasetFile(file, { dataset: "hostile", format, fs: format === "nl2bash" ? "fs1" : undefined });
      } catch (e) {
        err = e;
      }
      const problem = err
        ? err instanceof StudioError && err.code === "bad_input" && err.message.includes(path.basename(file))
          ? null
          : `threw ${(err as Error).name}: ${(err as Error).message.slice(0, 160)}`
        : acceptable(format, label, tasks)
          ? null
          : `accepted (${tasks.length} tasks)`;
      judge(`loader ${format} ${label}`, problem);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});

describe("hostile trajectory files for the importer", () => {
  it("reports each as an error or rejected records, and stores nothing", async () => {
    const before = storeHash();
    const texts: [string, string][] = [
      ...HOSTILE_JSON,
      ["jsonl with garbage lines", '{"env":"bash"}\nnot json\n{"turns": 5}\n'],
      ["results file with wrong shapes", JSON.stringify({ "0": { trajectory: "nope", reward: "high" }, "1": null, "2": [1, 2] })],
      ["episode with a NUL in the action", JSON.stringify({ "0": { query_idx: 0, trajectory: [{ action: "ls\u0000/etc", observation: 5 }], reward: 2 } })],
    ];
    for (const [label, text] of texts) {
      const name = `ic_bash_gpt-4_${label.replace(/\W+/g, "-")}_turns.json`;
      const report = await importLogText(name, text).then(
        (r) => r,
        (e: Error) => ({ thrown: e }),
      );
      let problem: string | null = null;
      if ("thrown" in report) {
        if (!(report.thrown instanceof StudioError)) problem = `threw ${report.thrown.name}: ${report.thrown.message.slice(0, 160)}`;
      } else if (report.added > 0) problem = `added ${report.added} episode(s)`;
      else if (!report.error && report.rejected.length === 0) problem = "neither an error nor a rejected record";
      else if (report.rejected.some((r) => !r.reason)) problem = "a rejected record without a reason";
      judge(`import ${label}`, problem);
    }
    judge("import leaves the store unchanged", storeHash() === before ? null : "the stored episodes changed");
  }, 120_000);
});

describe("task references and environment names with path tricks", () => {
  it("refuses each with a clear error", async () => {
    const refs = [
      "../../etc/passwd",
      "/etc/passwd",
      "demo-bash:../../../etc/passwd",
      "demo-bash:..%2F..%2Fetc",
      "..%2f..%2fetc:passwd",
      "demo-bash:count-python-files\u0000.json",
      "\u0000",
      "demo-bash/../demo-sql:bike-01",
      "C:\\windows:x",
      "demo-bash:" + "a".repeat(100_000),
    ];
    for (const ref of refs) {
      for (const [what, fn] of [
        ["findTask", () => findTask("bash", ref)],
        ["getTask", () => getTask(ref.split(":")[0] ?? ref, ref.split(":")[1] ?? ref)],
        ["loadDataset", () => loadDataset(ref)],
        ["parseTaskRef", () => parseTaskRef(ref)],
      ] as const) {
        let problem: string | null = null;
        try {
          const r = (fn as () => unknown)();
          if (what !== "parseTaskRef") problem = `returned ${JSON.stringify(r).slice(0, 100)}`;
        } catch (e) {
          if (!(e instanceof StudioError)) problem = `threw ${(e as Error).name}: ${(e as Error).message.slice(0, 120)}`;
          else if ((e as Error).message.length < 5) problem = "an error with no message";
        }
        judge(`${what}(${JSON.stringify(ref.slice(0, 40))})`, problem);
      }
    }
    for (const env of ["cobol", "../bash", "bash\u0000", ""]) {
      const err = await createEnvironment(env as "bash").then(
        () => null,
        (e: Error) => e,
      );
      judge(
        `createEnvironment(${JSON.stringify(env)})`,
        err instanceof StudioError && err.code === "bad_input" ? null : `gave ${err?.message ?? "an environment"}`,
      );
    }
  });
});

describe("websocket messages", () => {
  it("malformed and oversized messages are refused with a reason, never a throw", () => {
    const bad = [
      "",
      "null",
      "{}",
      "[]",
      '{"type":"action"}',
      '{"type":"action","text":"","source":"console"}',
      '{"type":"open","env":"cobol","taskRef":"x"}',
      '{"type":"resume","episodeId":"' + "a".repeat(200) + '"}',
      '{"type":"open","env":"bash","taskRef":"demo-bash:x","turnLimit":-1}',
      '{"type":"__proto__"}',
      deep(10_000),
      JSON.stringify({ type: "action", text: "x".repeat(1024 * 1024), source: "console" }),
      JSON.stringify({ type: "action", text: "é".repeat(MAX_ACTION_BYTES / 2 + 1), source: "console" }),
    ];
    for (const raw of bad) {
      let problem: string | null = null;
      try {
        const r = parseClientMessage(raw);
        if (r.ok) problem = "accepted";
        else if (!r.reason) problem = "no reason";
        else if (raw.length >= 1024 * 1024 && !/larger|KiB|MB/i.test(r.reason)) problem = `reason does not name the size: ${r.reason}`;
      } catch (e) {
        problem = `threw ${(e as Error).message}`;
      }
      judge(`ws message ${JSON.stringify(raw.slice(0, 40))}`, problem);
    }
    // Property: no string makes the parser throw; what it accepts fits the size limits.
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ type: "action", text: v, source: "console" })),
        ),
        (raw) => {
          const r = parseClientMessage(raw);
          if (r.ok && r.message.type === "action") return new TextEncoder().encode(r.message.text).length <= MAX_ACTION_BYTES;
          return r.ok || r.reason.length > 0;
        },
      ),
      { numRuns: 500 },
    );
    tried += 500;
  });
});

describe("action parser properties (lib/agent/parse-action)", () => {
  it("never throws; actions are non-empty and trimmed; invalid replies say why", () => {
    const reply = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc
        .tuple(fc.string(), fc.constantFrom("```", "```bash\n", "```sql\n", "```\n"), fc.string(), fc.constantFrom("```", "", "\n```\n"))
        .map((p) => p.join("")),
      fc
        .tuple(fc.constantFrom("Action:", "action :", "**Action**:", "> Action:", "Thought:"), fc.string(), fc.constantFrom("", "\n", "\r\n"), fc.string())
        .map((p) => p.join(" ")),
      fc.constantFrom("submit", "SUBMIT flag{x}", "skip", "skip it", "```\nsubmit\n```", "Action: submit", "", "``````", "```\n```"),
    );
    const opts = fc.record({
      actionLabel: fc.option(fc.oneof(fc.constantFrom("Action", "Act.*", "(", "[", "\\"), fc.string()), { nil: undefined }),
      thoughtLabel: fc.option(fc.oneof(fc.constant("Thought"), fc.string()), { nil: undefined }),
      fenceLanguage: fc.option(fc.string(), { nil: undefined }),
    });
    fc.assert(
      fc.property(reply, opts, (r, o) => {
        const p = parseAction(r, o);
        switch (p.kind) {
          case "action":
            return p.action.length > 0 && p.action === p.action.trim();
          case "submit":
            return p.arg === undefined || (p.arg.length > 0 && p.arg === p.arg.trim());
          case "skip":
            return true;
          case "invalid":
            return p.reason.length > 0;
          default:
            return false;
        }
      }),
      { numRuns: 2000 },
    );
    tried += 2000;
  });
});

describe("figures", () => {
  it("every bad input was refused", () => {
    recordFigure({
      section: "bad input",
      row: "loaders, importer, task refs, ws messages, parsers",
      tried,
      passed: tried - failures.length,
      unit: "rejected",
      failures,
    });
    expect(failures).toEqual([]);
  });
});
