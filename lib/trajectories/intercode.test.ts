import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { parseInterCodeRecord, readPlainResultsRecord, resultsRecordSchema, type LogMeta } from "./intercode";
import { sharedIntercodeDir } from "@/lib/datasets/paths";
import { parseLogText } from "./parse-log";

/** The fields the importer reads from a results record. */
const readFields = (r: Record<string, unknown>) => {
  const th = r.turn_history as Record<string, unknown>;
  const s = r.summary as Record<string, unknown>;
  return {
    environment: r.environment,
    dataset: r.dataset,
    task_id: r.task_id,
    query: r.query,
    gold: r.gold,
    hardness: r.hardness,
    db: r.db,
    info: r.info,
    actions: th.actions,
    observations: th.observations,
    rewards: th.rewards,
    valid_action: th.valid_action,
    max_reward: s.max_reward,
    max_reward_idx: s.max_reward_idx,
    turns_taken: s.turns_taken,
    turns_max: s.turns_max,
  };
};

describe("readPlainResultsRecord (the importer's path without zod)", () => {
  it("gives what the zod schema gives on every record of InterCode's published results", () => {
    const dir = path.join(sharedIntercodeDir(), "results-sample");
    let plain = 0;
    for (const env of fs.readdirSync(dir)) {
      for (const f of fs.readdirSync(path.join(dir, env)).filter((n) => n.endsWith(".json"))) {
        const data = JSON.parse(fs.readFileSync(path.join(dir, env, f), "utf8")) as Record<string, unknown>;
        for (const value of Object.values(data)) {
          const zod = resultsRecordSchema.safeParse(value);
          const fast = readPlainResultsRecord(value);
          if (fast) {
            plain++;
            expect(zod.success, f).toBe(true);
            expect(readFields(fast)).toEqual(readFields(zod.data as Record<string, unknown>));
          }
        }
      }
    }
    expect(plain).toBeGreaterThan(100);
  });

  it("leaves to zod every record it does not fully understand, and accepts nothing zod rejects", () => {
    const good = {
      environment: "ic_sql",
      query: "how many singers?",
      task_id: 3,
      turn_history: { actions: ["SELECT 1"], observations: [[[1]]], rewards: [0.5], valid_action: [true] },
      summary: { max_reward: 0.5, max_reward_idx: 0, turns_taken: 1, turns_max: 10 },
    };
    expect(readPlainResultsRecord(good)?.environment).toBe("sql");
    const variants: Array<(r: typeof good) => unknown> = [
      (r) => ({ ...r, environment: "ic_cobol" }),
      (r) => ({ ...r, query: 7 }),
      (r) => ({ ...r, gold: ["a", "b"] }), // zod turns it into JSON text
      (r) => ({ ...r, task_id: null }),
      (r) => ({ ...r, turn_history: { ...r.turn_history, rewards: [true] } }), // zod turns it into 1
      (r) => ({ ...r, turn_history: { ...r.turn_history, actions: [1] } }),
      (r) => ({ ...r, turn_history: { ...r.turn_history, observations: "x" } }),
      (r) => ({ ...r, turn_history: { ...r.turn_history, valid_action: ["yes"] } }),
      (r) => ({ ...r, turn_history: [] }),
      (r) => ({ ...r, summary: { ...r.summary, max_reward: false } }),
      (r) => ({ ...r, summary: { ...r.summary, max_reward_idx: 0.5 } }),
      (r) => ({ ...r, summary: { ...r.summary, turns_taken: -1 } }),
      (r) => ({ ...r, summary: { ...r.summary, turns_max: 0 } }),
      (r) => ({ ...r, summary: undefined }),
    ];
    for (const make of variants) {
      const v = make(good);
      expect(readPlainResultsRecord(v), JSON.stringify(v)).toBeNull();
    }
  });
});

describe("record keys", () => {
  it("stay what stored databases hold: SHA-256 of [format, environment, dataset, model, policy, turn limit, human, record key, file hash]", () => {
    const rec = { environment: "ic_sql", query: "q", turn_history: { actions: ["a"], observations: ["o"] }, summary: { max_reward: 0 } };
    const metas: Array<[LogMeta, string]> = [
      [{ environment: "sql", model: "gpt-4", policy: "try-again", turnLimit: 10 }, "12"],
      [{ human: true }, 'a"b'],
      [{ dataset: "spider-dev" }, "0"],
      [{ environment: "sql", model: "gpt-4", policy: "try-again", turnLimit: 10 }, "13"],
    ];
    for (const [meta, key] of metas) {
      const want = createHash("sha256")
        .update(
          JSON.stringify([
            "results",
            meta.environment ?? null,
            meta.dataset ?? null,
            meta.model ?? null,
            meta.policy ?? null,
            meta.turnLimit ?? null,
            meta.human ?? false,
            key,
            "f00d",
          ]),
        )
        .digest("hex")
        .slice(0, 40);
      expect(parseInterCodeRecord(key, rec, meta, "f.json", new Date(), "f00d").sourceKey).toBe(want);
    }
  });
});

describe("a --dataset flag that repeats what the log implies", () => {
  const sqlLog = path.join(sharedIntercodeDir(), "results-sample/sql/ic_sql_multiturn_human_10_turns.json");
  const bashLog = path.join(sharedIntercodeDir(), "results-sample/bash/ic_bash_multiturn_gpt-4_10_turns_fs_4.json");
  const keys = (file: string, dataset?: string) =>
    parseLogText(file, fs.readFileSync(file, "utf8"), dataset === undefined ? {} : { dataset }).episodes.map((e) => [e.dataset, e.sourceKey]);

  it("keys the records as without it, so importing the log both ways stores it once", () => {
    for (const [file, implied] of [
      [sqlLog, "spider-dev"],
      [bashLog, "nl2bash-fs4"],
    ] as const) {
      const plain = keys(file);
      expect(plain.length).toBeGreaterThan(0);
      expect(plain.every(([d]) => d === implied)).toBe(true);
      expect(keys(file, implied)).toEqual(plain);
    }
  });

  it("and a flag naming another dataset is another attribution, with other keys", () => {
    const plain = keys(sqlLog);
    const other = keys(sqlLog, "spider-other");
    expect(other.every(([d]) => d === "spider-other")).toBe(true);
    expect(other.map(([, k]) => k).filter((k) => plain.some(([, p]) => p === k))).toEqual([]);
  });
});
