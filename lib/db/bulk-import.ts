import "server-only";
import { uuidv7 } from "./ids";
import type Database from "better-sqlite3";
import { withWriteLock } from "./lock";
import { withRaw } from "./sqlite";

/** A finished episode to store in bulk (imported logs). Dates are Unix milliseconds. */
export interface BulkEpisode {
  id?: string;
  sourceKey: string;
  environment: string;
  dataset: string;
  taskId: string;
  taskIndex?: number | null;
  query: string;
  gold?: string | null;
  playerKind: string;
  annotator?: string | null;
  model?: string | null;
  policy?: string | null;
  turnLimit: number;
  mode?: string;
  feedback?: string;
  backend?: string | null;
  status: string;
  errorReason?: string | null;
  reward: number | null;
  breakdown?: string | null;
  success: boolean;
  solvedAtTurn?: number | null;
  goldObservation?: string | null;
  agentObservation?: string | null;
  startedAt: number;
  firstActionAt?: number | null;
  endedAt?: number | null;
  durationMs?: number | null;
  sourceFile?: string | null;
  parentEpisodeId?: string | null;
  branchTurn?: number | null;
  hardness?: string | null;
  db?: string | null;
  tags?: string;
  turns: BulkTurn[];
}

export interface BulkTurn {
  index: number;
  actor: string;
  action: string;
  observation: string;
  ok: boolean | null;
  reward?: number | null;
  rawReply?: string | null;
  thought?: string | null;
  tokensIn?: number | null;
  tokensOut?: number | null;
  durationMs?: number | null;
  costUsd?: number | null;
  source?: string | null;
  timedOut?: boolean;
  aborted?: boolean;
  startedAt?: number | null;
}

const EPISODE_COLS = [
  "id", "environment", "dataset", "taskId", "taskIndex", "query", "gold", "playerKind", "annotator", "model", "policy", "turnLimit",
  "mode", "feedback", "backend", "status", "errorReason", "reward", "breakdown", "success", "solvedAtTurn", "goldObservation",
  "agentObservation", "startedAt", "firstActionAt", "endedAt", "durationMs", "sourceFile", "sourceKey", "parentEpisodeId",
  "branchTurn", "hardness", "db", "tags", "turnCount", "invalidCount", "checkedCount", "createdAt", "updatedAt", "searchKey",
] as const;
const TURN_COLS = [
  "episodeId", "index", "actor", "action", "observation", "ok", "reward", "rawReply", "thought", "tokensIn", "tokensOut",
  "durationMs", "costUsd", "source", "timedOut", "aborted", "startedAt", "createdAt",
] as const;

const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();
function prepare(db: Database.Database) {
  const q = (c: string) => `"${c}"`;
  return {
    episode: db.prepare(
      `INSERT INTO "Episode" (${EPISODE_COLS.map(q).join(", ")}) VALUES (${EPISODE_COLS.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`,
    ),
    turn: db.prepare(`INSERT INTO "Turn" (${TURN_COLS.map(q).join(", ")}) VALUES (${TURN_COLS.map(() => "?").join(", ")})`),
    parentExists: db.prepare(`SELECT 1 FROM "Episode" WHERE "id" = ?`),
    lastSearchKey: db.prepare(`SELECT IFNULL(MAX("searchKey"), 0) AS "k" FROM "Episode"`),
    deferFts: db.prepare(`UPDATE "_FtsControl" SET "deferred" = ? WHERE "id" = 1`),
    indexEpisode: db.prepare(`INSERT INTO "EpisodeText"(rowid, "query", "body") VALUES (?, ?, ?)`),
    fileSeen: db.prepare(`SELECT "episodes", "rejected" FROM "ImportedFile" WHERE "contentHash" = ?`),
    fileRecord: db.prepare(
      `INSERT INTO "ImportedFile" ("contentHash", "path", "format", "episodes", "rejected", "importedAt") VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
  };
}
function stmts(db: Database.Database) {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepare(db)));
  return s;
}

/** Whether a file (by content hash, flags included) was imported before, and what it gave. */
export function getImportedFileByHash({ contentHash }: { contentHash: string }): { episodes: number; rejected: number } | null {
  return withRaw((db) => (stmts(db).fileSeen.get(contentHash) as { episodes: number; rejected: number } | undefined) ?? null);
}

const bool = (b: boolean | null | undefined) => (b === null || b === undefined ? null : b ? 1 : 0);

/**
 * Stores one file's episodes in a single transaction: all of them or (on a storage failure)
 * none. Episodes whose id or sourceKey is already stored are skipped, so importing twice stores
 * nothing new. Records the file's content hash when given. Counters (turns, invalid, checked)
 * are computed here from the turns.
 */
export async function insertEpisodesBulk({
  episodes,
  file,
}: {
  episodes: BulkEpisode[];
  file?: { contentHash: string; path: string; format: string; rejected: number };
}): Promise<{ added: number; skipped: number; addedIds: string[] }> {
  return withWriteLock(() =>
    withRaw((db) => {
      const s = stmts(db);
      const run = db.transaction(() => {
        let added = 0;
        const addedIds: string[] = [];
        const now = Date.now();
        // Index each new episode once, with all its turns, rather than through the per-turn
        // triggers (see the episode_text_search migration); the switch never outlives this
        // transaction. Episodes get their search keys here, so the Episode trigger stays quiet.
        let searchKey = (s.lastSearchKey.get() as { k: number }).k;
        s.deferFts.run(1);
        for (const e of episodes) {
          const id = e.id ?? uuidv7();
          let invalid = 0;
          let checked = 0;
          for (const t of e.turns) {
            if (t.ok !== null && t.ok !== undefined) checked++;
            if (t.ok === false) invalid++;
          }
          const parent = e.parentEpisodeId && s.parentExists.get(e.parentEpisodeId) ? e.parentEpisodeId : null;
          // Positional parameters: binding 40 named ones per row costs more than the insert.
          const row: Record<(typeof EPISODE_COLS)[number], unknown> = {
            id,
            environment: e.environment,
            dataset: e.dataset,
            taskId: e.taskId,
            taskIndex: e.taskIndex ?? null,
            query: e.query,
            gold: e.gold ?? null,
            playerKind: e.playerKind,
            annotator: e.annotator ?? null,
            model: e.model ?? null,
            policy: e.policy ?? null,
            turnLimit: e.turnLimit,
            mode: e.mode ?? "import",
            feedback: e.feedback ?? "reward",
            backend: e.backend ?? null,
            status: e.status,
            errorReason: e.errorReason ?? null,
            reward: e.reward,
            breakdown: e.breakdown ?? null,
            success: e.success ? 1 : 0,
            solvedAtTurn: e.solvedAtTurn ?? null,
            goldObservation: e.goldObservation ?? null,
            agentObservation: e.agentObservation ?? null,
            startedAt: e.startedAt,
            firstActionAt: e.firstActionAt ?? null,
            endedAt: e.endedAt ?? null,
            durationMs: e.durationMs ?? null,
            sourceFile: e.sourceFile ?? null,
            sourceKey: e.sourceKey,
            parentEpisodeId: parent,
            branchTurn: parent ? (e.branchTurn ?? null) : null,
            hardness: e.hardness ?? null,
            db: e.db ?? null,
            tags: e.tags ?? "",
            turnCount: e.turns.length,
            invalidCount: invalid,
            checkedCount: checked,
            createdAt: now,
            updatedAt: now,
            searchKey: searchKey + 1,
          };
          const res = s.episode.run(EPISODE_COLS.map((c) => row[c]));
          if (res.changes === 0) continue;
          searchKey++;
          added++;
          addedIds.push(id);
          let body = "";
          for (const t of e.turns) body += (body ? " " : "") + t.action + " " + t.observation;
          s.indexEpisode.run(searchKey, e.query, body);
          for (const t of e.turns) {
            const turnRow: Record<(typeof TURN_COLS)[number], unknown> = {
              episodeId: id,
              index: t.index,
              actor: t.actor,
              action: t.action,
              observation: t.observation,
              ok: bool(t.ok),
              reward: t.reward ?? null,
              rawReply: t.rawReply ?? null,
              thought: t.thought ?? null,
              tokensIn: t.tokensIn ?? null,
              tokensOut: t.tokensOut ?? null,
              durationMs: t.durationMs ?? null,
              costUsd: t.costUsd ?? null,
              source: t.source ?? null,
              timedOut: t.timedOut ? 1 : 0,
              aborted: t.aborted ? 1 : 0,
              startedAt: t.startedAt ?? null,
              createdAt: now,
            };
            s.turn.run(TURN_COLS.map((c) => turnRow[c]));
          }
        }
        s.deferFts.run(0);
        if (file) s.fileRecord.run(file.contentHash, file.path, file.format, episodes.length, file.rejected, now);
        return { added, skipped: episodes.length - added, addedIds };
      });
      return run.immediate();
    }),
  );
}
