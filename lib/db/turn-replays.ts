import "server-only";
import { config } from "@/lib/config";
import { cachedStatement, pgTransaction, withSql, type Sql } from "./sql";
import { rowParser } from "./rows";
import { withRaw } from "./sqlite";

/** What a replay in a fresh sandbox found after one turn (see TurnReplay in schema.prisma). */
export interface TurnReplayRow {
  index: number;
  /** The reward a submit would have scored after this turn; null when it could not be scored. */
  reward: number | null;
  /** Whether the replayed output agreed with the recorded one. */
  agrees: boolean;
  /** SQL: the result set's column names, when the turn's query returned one. */
  columns: string[] | null;
}

const replayRow = rowParser("TurnReplay", ["index", "reward", "agrees", "columns"]);

function toRow(row: unknown): TurnReplayRow {
  const r = replayRow.one(row);
  let columns: string[] | null = null;
  if (r.columns !== null) {
    try {
      const v = JSON.parse(r.columns) as unknown;
      if (Array.isArray(v) && v.every((c) => typeof c === "string")) columns = v;
    } catch {
      columns = null;
    }
  }
  return { index: r.index, reward: r.reward, agrees: r.agrees, columns };
}

/**
 * The cached replay of an episode's turns, in turn order (empty when it was never replayed); with
 * `limit`, only the turns `from`..`from + limit - 1` (a page of the replay: an indexed range read).
 */
export async function listTurnReplaysByEpisode({ episodeId, from = 0, limit }: { episodeId: string; from?: number; limit?: number }): Promise<TurnReplayRow[]> {
  const range = limit === undefined ? "" : ` AND "index" >= ? AND "index" < ?`;
  const params = limit === undefined ? [episodeId] : [episodeId, from, from + limit];
  return withSql(async (sql) =>
    (await sql.all(`SELECT "index", "reward", "agrees", "columns" FROM "TurnReplay" WHERE "episodeId" = ?${range} ORDER BY "index"`, params)).map(toRow),
  );
}

/**
 * What the turn scores of an episode need to know before they read a page: its turns with no
 * recorded reward, and its turns with a cached replay (counts, read from indexes, never the turns' text).
 */
export async function countTurnScoreGapsByEpisode({ episodeId }: { episodeId: string }): Promise<{ unrewarded: number; replayed: number }> {
  return withSql(async (sql) => {
    const row = await sql.get<{ unrewarded: number; replayed: number }>(
      `SELECT (SELECT COUNT(*) FROM "Turn" WHERE "episodeId" = ? AND "reward" IS NULL) AS unrewarded, (SELECT COUNT(*) FROM "TurnReplay" WHERE "episodeId" = ?) AS replayed`,
      [episodeId, episodeId],
    );
    return { unrewarded: Number(row?.unrewarded ?? 0), replayed: Number(row?.replayed ?? 0) };
  });
}

/**
 * The cached replay's would-be rewards as the reward curve aggregates the recorded ones
 * (lib/db/viewer-queries.ts readCurve): the highest in each bucket of `bucket` turns, at the
 * bucket's first turn index. At most CURVE_POINTS points, whatever the episode's length.
 */
export async function listTurnReplayCurveByEpisode({
  episodeId,
  bucket,
}: {
  episodeId: string;
  bucket: number;
}): Promise<{ turn: number; reward: number | null }[]> {
  const b = Math.max(1, Math.floor(bucket));
  return withSql(async (sql) =>
    (
      await sql.all<{ turn: number; reward: number | null }>(
        `SELECT MIN("index") AS turn, MAX("reward") AS reward FROM "TurnReplay" WHERE "episodeId" = ? GROUP BY "index" / ${b} ORDER BY 1`,
        [episodeId],
      )
    ).map((r) => ({ turn: Number(r.turn), reward: r.reward === null ? null : Number(r.reward) })),
  );
}

/** Stores (replacing any earlier) one episode's replayed turns, all in one transaction. */
export async function putTurnReplays({ episodeId, turns }: { episodeId: string; turns: TurnReplayRow[] }): Promise<void> {
  const store = config().store;
  if (store.kind === "postgresql") {
    await pgTransaction(store.url, async (sql: Sql) => {
      await sql.run(`DELETE FROM "TurnReplay" WHERE "episodeId" = ?`, [episodeId]);
      for (const t of turns)
        await sql.run(`INSERT INTO "TurnReplay" ("episodeId", "index", "reward", "agrees", "columns") VALUES (?, ?, ?, ?, ?)`, [
          episodeId,
          t.index,
          t.reward,
          t.agrees,
          t.columns ? JSON.stringify(t.columns) : null,
        ]);
    });
    return;
  }
  withRaw((db) => {
    const del = cachedStatement(db, `DELETE FROM "TurnReplay" WHERE "episodeId" = ?`);
    const ins = cachedStatement(db, `INSERT INTO "TurnReplay" ("episodeId", "index", "reward", "agrees", "columns") VALUES (?, ?, ?, ?, ?)`);
    db.transaction(() => {
      del.run(episodeId);
      for (const t of turns) ins.run(episodeId, t.index, t.reward, t.agrees ? 1 : 0, t.columns ? JSON.stringify(t.columns) : null);
    })();
  });
}
