import Database from "better-sqlite3";

/** Reads an episode and its turns straight from the server's database file. */
export function readEpisode(dbPath: string, id: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const episode = db.prepare(`SELECT id, status, reward, turnCount, annotator, mode, environment, dataset, taskId FROM "Episode" WHERE id = ?`).get(id) as
      | {
          id: string;
          status: string;
          reward: number | null;
          turnCount: number;
          annotator: string | null;
          mode: string;
          environment: string;
          dataset: string;
          taskId: string;
        }
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

/** A stored episode of a study, with what a baseline needs: annotator, conditions, timings (ms since the epoch). */
export interface StudyEpisodeRow {
  id: string;
  taskId: string;
  status: string;
  reward: number | null;
  annotator: string | null;
  mode: string;
  feedback: string;
  turnLimit: number;
  errorReason: string | null;
  startedAt: number;
  firstActionAt: number | null;
  endedAt: number | null;
  durationMs: number | null;
  turns: { index: number; action: string; reward: number | null; startedAt: number | null; durationMs: number | null }[];
}

/** Every episode stored for a study, oldest first, with its turns. */
export function readStudyEpisodes(dbPath: string, studyId: string): StudyEpisodeRow[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const episodes = db
      .prepare(
        `SELECT id, taskId, status, reward, annotator, mode, feedback, turnLimit, errorReason, startedAt, firstActionAt, endedAt, durationMs
         FROM "Episode" WHERE studyId = ? ORDER BY startedAt, id`,
      )
      .all(studyId) as Omit<StudyEpisodeRow, "turns">[];
    const turns = db.prepare(`SELECT "index", action, reward, startedAt, durationMs FROM "Turn" WHERE episodeId = ? ORDER BY "index"`);
    return episodes.map((e) => ({ ...e, turns: turns.all(e.id) as StudyEpisodeRow["turns"] }));
  } finally {
    db.close();
  }
}

/** A study's stored task list (from its config). */
export function readStudyTasks(dbPath: string, studyId: string): string[] {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(`SELECT config FROM "Study" WHERE id = ?`).get(studyId) as { config: string } | undefined;
    if (!row) throw new Error(`no study ${studyId} in ${dbPath}`);
    return (JSON.parse(row.config) as { tasks: string[] }).tasks;
  } finally {
    db.close();
  }
}
