import { describe, expect, it } from "vitest";
import { ConflictError, StorageError } from "@/lib/errors";
import { countTags, createAnnotation, updateAnnotationStatus } from "./annotations";
import { closeStore, getPrisma } from "./client";
import { initStore } from "./startup";
import { storeEngines, useTempStore } from "@/lib/testing/store";
import {
  appendTurn,
  createEpisode,
  finishEpisode,
  getEpisodeById,
  listEpisodes,
  markInterruptedEpisodes,
  resumeEpisode,
  type NewEpisodeInput,
} from "./episodes";
import { createRun, recordRunEpisode } from "./runs";
import { getRawDb } from "./sqlite";
import { ROW_SCHEMAS, columnsOf } from "./rows";
import { withSql } from "./sql";

const base: NewEpisodeInput = {
  environment: "bash",
  dataset: "nl2bash-fs1",
  taskId: "3",
  taskIndex: 3,
  query: "count the python files under the testbed",
  playerKind: "human",
  annotator: "ann",
  turnLimit: 10,
};

describe.each(storeEngines())("episodes on %s", (engine) => {
  useTempStore("episodes", engine);

  it("has one row schema naming every column of each table it reads (lib/db/rows.ts)", async () => {
    await initStore();
    for (const table of Object.keys(ROW_SCHEMAS) as (keyof typeof ROW_SCHEMAS)[]) {
      const live = await withSql(async (sql) =>
        sql.dialect.name === "sqlite"
          ? (await sql.all<{ name: string }>(`SELECT "name" FROM pragma_table_info(?)`, [table])).map((r) => r.name)
          : (
              await sql.all<{ name: string }>(
                `SELECT column_name AS "name" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`,
                [table],
              )
            ).map((r) => r.name),
      );
      expect([...live].sort(), table).toEqual([...columnsOf(table)].sort());
    }
  });

  it("creates an episode, appends turns with counters, and finishes it", async () => {
    const ep = await createEpisode(base);
    expect(ep.status).toBe("running");
    expect(ep.startedAt).toBeInstanceOf(Date);
    await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "human", action: "ls /testbed", observation: "dir1\nfile.py\n", ok: true } });
    await appendTurn({ episodeId: ep.id, turn: { index: 1, actor: "human", action: "fnd . -name '*.py'", observation: "fnd: command not found", ok: false } });
    await expect(appendTurn({ episodeId: ep.id, turn: { index: 1, actor: "human", action: "x", observation: "" } })).rejects.toBeInstanceOf(ConflictError);
    await appendTurn({
      episodeId: ep.id,
      turn: { index: 2, actor: "human", action: "find /testbed -name '*.py' | wc -l", observation: "4\n", ok: true, reward: 1 },
    });
    const done = await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 1, breakdown: { answer: 1 } } });
    expect(done).toMatchObject({ status: "submitted", success: true, solvedAtTurn: 3, turnCount: 3, invalidCount: 1, checkedCount: 3 });
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
    await expect(appendTurn({ episodeId: ep.id, turn: { index: 3, actor: "human", action: "late", observation: "" } })).rejects.toThrow(/not running/);
    const full = await getEpisodeById({ id: ep.id });
    expect(full!.turns.map((t) => t.action)).toEqual(["ls /testbed", "fnd . -name '*.py'", "find /testbed -name '*.py' | wc -l"]);
    expect(full!.turns[1].ok).toBe(false);
    expect(JSON.parse(full!.breakdown!)).toEqual({ answer: 1 });
    if (engine === "sqlite") {
      // DateTime columns hold Unix milliseconds, which the raw queries rely on.
      const raw = getRawDb().prepare(`SELECT typeof("startedAt") AS t, typeof("updatedAt") AS u FROM "Episode" WHERE id = ?`).get(ep.id);
      expect(raw).toEqual({ t: "integer", u: "integer" });
    }
  });

  it("stores the duration from the first action (the baseline clock), or from the opening when no action was taken", async () => {
    const ep = await createEpisode({ ...base, taskId: "clock", mode: "baseline" });
    await new Promise((r) => setTimeout(r, 400)); // the annotator reads the task before acting
    await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "human", action: "ls", observation: "a\n", ok: true } });
    await new Promise((r) => setTimeout(r, 150));
    const done = await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: 0 } });
    expect(done.firstActionAt).not.toBeNull();
    expect(done.firstActionAt!.getTime() - done.startedAt.getTime()).toBeGreaterThanOrEqual(390);
    expect(done.durationMs).toBe(done.endedAt!.getTime() - done.firstActionAt!.getTime());
    expect(done.durationMs).toBeGreaterThanOrEqual(140);
    // The reading time before the first action is not in it.
    expect(done.durationMs).toBeLessThan(done.endedAt!.getTime() - done.startedAt.getTime() - 350);
    // What a later read returns is what was stored.
    expect((await getEpisodeById({ id: ep.id }))!.durationMs).toBe(done.durationMs);

    const idle = await createEpisode({ ...base, taskId: "clock-idle", mode: "baseline" });
    await new Promise((r) => setTimeout(r, 200));
    const left = await finishEpisode({ episodeId: idle.id, outcome: { status: "abandoned", reason: "skip: too hard" } });
    expect(left.firstActionAt).toBeNull();
    expect(left.durationMs).toBe(left.endedAt!.getTime() - left.startedAt.getTime());
    expect(left.durationMs).toBeGreaterThanOrEqual(190);
  });

  it("marks episodes left running as interrupted, keeps their turns, and resumes them", async () => {
    const ep = await createEpisode({ ...base, taskId: "7" });
    await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "human", action: "pwd", observation: "/\n", ok: true } });
    expect(await markInterruptedEpisodes()).toBeGreaterThanOrEqual(1);
    expect((await getEpisodeById({ id: ep.id }))!.status).toBe("interrupted");
    await expect(appendTurn({ episodeId: ep.id, turn: { index: 1, actor: "human", action: "ls", observation: "" } })).rejects.toBeInstanceOf(ConflictError);
    const resumed = await resumeEpisode({ id: ep.id });
    expect(resumed.status).toBe("running");
    expect(resumed.turns).toHaveLength(1);
    await expect(resumeEpisode({ id: ep.id })).rejects.toBeInstanceOf(ConflictError);
    await appendTurn({ episodeId: ep.id, turn: { index: 1, actor: "human", action: "ls", observation: "bin\n", ok: true } });
    await finishEpisode({ episodeId: ep.id, outcome: { status: "abandoned", reason: "gave up" } });
    expect((await getEpisodeById({ id: ep.id }))!).toMatchObject({ status: "abandoned", errorReason: "gave up", turnCount: 2, success: false });
  });

  it("lists with filters, sort, paging and full-text search over queries, actions and observations", async () => {
    const run = await createRun({ name: "list-test", config: { model: "m" }, total: 5 });
    for (let i = 0; i < 5; i++) {
      const ep = await createEpisode({
        ...base,
        environment: "sql",
        dataset: "spider",
        taskId: `q${i}`,
        query: `how many singers ${i}`,
        playerKind: "model",
        model: i % 2 ? "gpt-4" : "gpt-3.5",
        policy: "try-again",
        annotator: null,
        runId: run.id,
      });
      await appendTurn({
        episodeId: ep.id,
        turn: {
          index: 0,
          actor: "model",
          action: i === 3 ? "SELECT zebra_count FROM singer" : "SELECT count(*) FROM singer",
          observation: `(${i},)`,
          ok: true,
        },
      });
      await finishEpisode({ episodeId: ep.id, outcome: { status: "submitted", reward: i / 4 } });
      await recordRunEpisode({ id: run.id, solved: i === 4, errored: false });
    }
    const all = await listEpisodes({ filters: { environment: "sql" }, sort: { key: "reward", dir: "desc" }, pageSize: 2 });
    expect(all.total).toBe(5);
    expect(all.rows.map((r) => r.reward)).toEqual([1, 0.75]);
    const p3 = await listEpisodes({ filters: { environment: "sql" }, sort: { key: "reward", dir: "desc" }, pageSize: 2, page: 3 });
    expect(p3.rows.map((r) => r.reward)).toEqual([0]);
    expect((await listEpisodes({ filters: { model: "gpt-4", runId: run.id } })).total).toBe(2);
    expect((await listEpisodes({ filters: { success: true, environment: "sql" } })).rows.map((r) => r.taskId)).toEqual(["q4"]);
    expect((await listEpisodes({ search: "zebra_count" })).rows.map((r) => r.taskId)).toEqual(["q3"]);
    expect((await listEpisodes({ search: "singers 2" })).rows.map((r) => r.taskId)).toEqual(["q2"]);
    expect((await listEpisodes({ search: "(4,)", filters: { environment: "sql" } })).rows.map((r) => r.taskId)).toEqual(["q4"]);
    expect((await listEpisodes({ search: "nothing-like-this" })).total).toBe(0);
    await expect(listEpisodes({ sort: { key: "query; DROP TABLE x" as never } })).rejects.toThrow(/sort/);
  });

  it("tags: accepted tags are filterable in the list, suggested ones are not until accepted", async () => {
    const ep = await createEpisode({ ...base, taskId: "tagged" });
    await createAnnotation({ episodeId: ep.id, kind: "tag", tag: "wrong-answer", author: "ann" });
    const sug = await createAnnotation({ episodeId: ep.id, turnIndex: 0, kind: "tag", tag: "command-not-found", author: "suggester", status: "suggested" });
    await createAnnotation({ episodeId: ep.id, turnIndex: 0, kind: "note", text: "typo in find", author: "ann" });
    expect((await listEpisodes({ filters: { tag: "wrong-answer" } })).rows.map((r) => r.id)).toEqual([ep.id]);
    expect((await listEpisodes({ filters: { tag: "command-not-found" } })).total).toBe(0);
    await updateAnnotationStatus({ id: sug.id, status: "accepted" });
    expect((await listEpisodes({ filters: { tag: "command-not-found" } })).rows[0].tags).toEqual(["command-not-found", "wrong-answer"]);
    expect(await countTags()).toEqual(expect.arrayContaining([{ tag: "wrong-answer", count: 1 }]));
    await expect(createAnnotation({ episodeId: ep.id, kind: "tag", tag: "Bad Tag!", author: "x" })).rejects.toThrow(/tag/);
  });

  // SQLite's own faults (PostgreSQL's read-only and full-disk cases are the server's to report).
  if (engine === "sqlite")
    it("a read-only database or a full disk is a StorageError and nothing is half-written", async () => {
      const ep = await createEpisode({ ...base, taskId: "faults" });
      const prisma = await getPrisma();
      await prisma.$executeRawUnsafe("PRAGMA query_only = ON");
      const ro = await createEpisode(base).catch((e) => e);
      expect(ro).toBeInstanceOf(StorageError);
      expect(ro.message).toMatch(/read-only/);
      await prisma.$executeRawUnsafe("PRAGMA query_only = OFF");

      const pages = Number((await prisma.$queryRawUnsafe<Array<{ page_count: bigint }>>("PRAGMA page_count"))[0].page_count);
      // Turns are written on the raw connection (max_page_count is per connection).
      getRawDb().pragma(`max_page_count = ${pages}`);
      const big = "x".repeat(200_000);
      const full = await appendTurn({ episodeId: ep.id, turn: { index: 0, actor: "human", action: big, observation: big, ok: true } }).catch((e) => e);
      getRawDb().pragma(`max_page_count = 1073741823`);
      expect(full).toBeInstanceOf(StorageError);
      expect(full.message).toMatch(/disk .* is full/);
      const after = await getEpisodeById({ id: ep.id });
      expect(after!.turnCount).toBe(0);
      expect(after!.turns).toHaveLength(0);
    });
});

describe("an unreachable store", () => {
  it("is refused at start with a message naming it, the password hidden", async () => {
    const saved = process.env.IC_DB;
    // A loopback port nothing listens on.
    process.env.IC_DB = "postgresql://studio:hunter2@127.0.0.1:1/studio";
    try {
      const err = await initStore().catch((e) => e);
      expect(err).toBeInstanceOf(StorageError);
      expect(err.message).toBe("cannot reach the store postgresql://studio:***@127.0.0.1:1/studio: nothing listens there");
      expect(JSON.stringify(err)).not.toContain("hunter2");
    } finally {
      await closeStore();
      process.env.IC_DB = saved;
    }
  });
});
