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

/** The cached replay of an episode's turns, in turn order (empty when it was never replayed). */
export async function listTurnReplaysByEpisode({ episodeId }: { episodeId: string }): Promise<TurnReplayRow[]> {
  return withSql(async (sql) => (await sql.all(`SELECT "index", "reward", "agrees", "columns" FROM "TurnReplay" WHERE "episodeId" = ? ORDER BY "index"`, [episodeId])).map(toRow));
}

/** The cached replays of several episodes, by episode id. */
export async function listTurnReplaysByEpisodes({ episodeIds }: { episodeIds: string[] }): Promise<Map<string, TurnReplayRow[]>> {
  const out = new Map<string, TurnReplayRow[]>();
  for (const id of episodeIds) out.set(id, await listTurnReplaysByEpisode({ episodeId: id }));
  return out;
}

/** Stores (replacing any earlier) one episode's replayed turns, all in one transaction. */
export async function putTurnReplays({ episodeId, turns }: { episodeId: string; turns: TurnReplayRow[] }): Promise<void> {
  const store = config().store;
  if (store.kind === "postgresql") {
    await pgTransaction(store.url, async (sql: Sql) => {
      await sql.run(`DELETE FROM "TurnReplay" WHERE "episodeId" = ?`, [episodeId]);
      for (const t of turns)
        await sql.run(`INSERT INTO "TurnReplay" ("episodeId", "index", "reward", "agrees", "columns") VALUES (?, ?, ?, ?, ?)`, [
          episodeId, t.index, t.reward, t.agrees, t.columns ? JSON.stringify(t.columns) : null,
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
