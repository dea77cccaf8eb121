import Database from "better-sqlite3";

/** Reads an episode and its turns straight from the server's database file. */
export function readEpisode(dbPath: string, id: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const episode = db.prepare(`SELECT id, status, reward, turnCount, annotator, mode, environment, dataset, taskId FROM "Episode" WHERE id = ?`).get(id) as
      | { id: string; status: string; reward: number | null; turnCount: number; annotator: string | null; mode: string; environment: string; dataset: string; taskId: string }
      | undefined;
    const turns = db.prepare(`SELECT "index", action, observation, ok, source FROM "Turn" WHERE episodeId = ? ORDER BY "index"`).all(id) as {
      index: number;
      action: string;
      observation: string;
      ok: number | null;
      source: string | null;
    }[];
    return { episode, turns };
  } finally {
    db.close();
  }
}
