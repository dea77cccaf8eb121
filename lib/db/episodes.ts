import "server-only";
import { BadInputError, ConflictError, NotFoundError } from "@/lib/errors";
import { withPrisma } from "./client";
import { storeName } from "./sql";
import { toStorageError } from "./storage-error";
import { LIST_COLUMNS, type EpisodeListRow, type ViewerRow } from "./episode-rows";
import { config } from "@/lib/config";
import {
  EPISODE_SORTS,
  isEpisodeSortKey,
  listConditions,
  oneColumnFilter,
  readEpisodePage,
  statsIndexCovers,
  type EpisodeFilters,
  type EpisodeSortKey,
} from "./episode-filters";
import { columnsOf, recordParser, rowParser, selectAll, words } from "./rows";
import { episodeStartFields, type NewEpisodeInput } from "./episode-writer";
import type { Annotation, Episode, Turn } from "./generated/client";
import { withWriteLock } from "./lock";
import { cachedStatement, pgTransaction, withSql, type Sql } from "./sql";
import { NOT_QUEUED_EPISODE } from "./runs";
import { withRaw } from "./sqlite";
import { insertTranscriptMessages, insertTranscriptMessagesRaw, type TranscriptMessageInput } from "./transcripts";
import { BUMP_EPISODE_SQL, bumpParams, pgTurnWriter, sqliteTurnWriter, type TurnInput } from "./turn-writer";

export type { Episode, Turn } from "./generated/client";
export type { EpisodeFilters, EpisodeSortKey } from "./episode-filters";
export type { NewEpisodeInput } from "./episode-writer";

/** Creates a running episode. */
export async function createEpisode(input: NewEpisodeInput): Promise<Episode> {
  if (!Number.isInteger(input.turnLimit) || input.turnLimit < 1) throw new BadInputError("must be a positive integer", "turnLimit");
  if ((input.parentEpisodeId == null) !== (input.branchTurn == null))
    throw new BadInputError("a branched episode needs both parentEpisodeId and branchTurn", "parentEpisodeId");
  const { id } = input;
  // The start fields as the bulk writer stores them, with a live episode's mode by default.
  return withPrisma((prisma) => prisma.episode.create({ data: { ...(id ? { id } : {}), ...episodeStartFields(input, { mode: "play" }), status: "running" } }));
}

/** One turn as the environment produced it, with the messages it added to the conversation with the model (stored once, with the turn). */
export type NewTurnInput = TurnInput & { messages?: readonly TranscriptMessageInput[] };

const STATUS_SQL = `SELECT "status" FROM "Episode" WHERE "id" = ?`;
const statusRow = rowParser("Episode", ["status"]);
const notRunning = (episodeId: string, status: string | undefined) =>
  status === undefined
    ? new NotFoundError(`episode ${episodeId}`)
    : new ConflictError(`episode ${episodeId} is ${status}, not running: it takes no more turns`);
const turnTaken = (episodeId: string, index: number) => new ConflictError(`episode ${episodeId} already has turn ${index}`);

/**
 * Stores a turn and updates the episode's counters in one transaction, through the one turn writer
 * (lib/db/turn-writer.ts). It resolves only once the transaction has committed, so a caller that
 * awaits it before showing the observation loses at most the action in flight on a crash. Refuses
 * (ConflictError) a turn for an episode that is not running, or a turn index already stored.
 *
 * This is the one write on every turn of every live episode, so it runs as prepared statements
 * on the raw connection (about 0.1 ms) rather than as a Prisma read and transaction (a few ms).
 */
export async function appendTurn({ episodeId, turn }: { episodeId: string; turn: NewTurnInput }): Promise<{ index: number }> {
  if (!Number.isInteger(turn.index) || turn.index < 0) throw new BadInputError("must be a non-negative integer", "turn.index");
  const now = Date.now();
  // A live turn without a start time started now (an imported one keeps none).
  const startedAt = turn.startedAt == null ? now : typeof turn.startedAt === "number" ? turn.startedAt : turn.startedAt.getTime();
  const row = { ...turn, startedAt };
  const messages = turn.messages?.length ? turn.messages.map((m) => ({ ...m, turnIndex: turn.index })) : null;
  const store = config().store;
  if (store.kind === "postgresql") return appendTurnPg(store.url, episodeId, row, messages, now);
  return withWriteLock(() =>
    withRaw((db) => {
      const store = db.transaction(() => {
        if (cachedStatement(db, BUMP_EPISODE_SQL).run(bumpParams(episodeId, turn, startedAt, now)).changes === 0) {
          const found = cachedStatement(db, STATUS_SQL).get(episodeId);
          throw notRunning(episodeId, found === undefined ? undefined : statusRow.one(found).status);
        }
        const writer = sqliteTurnWriter(db, now);
        writer.add(episodeId, row);
        try {
          writer.flush();
        } catch (err) {
          if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") throw turnTaken(episodeId, turn.index);
          throw err;
        }
        if (messages) insertTranscriptMessagesRaw(db, episodeId, messages);
        return { index: turn.index };
      });
      return store.immediate();
    }),
  );
}

/** appendTurn on PostgreSQL: the same statements in one transaction on a pooled connection. */
async function appendTurnPg(
  url: string,
  episodeId: string,
  row: TurnInput & { startedAt: number },
  messages: (TranscriptMessageInput & { turnIndex: number })[] | null,
  now: number,
): Promise<{ index: number }> {
  try {
    return await pgTransaction(url, async (sql: Sql) => {
      const t = sql.dialect.time;
      if ((await sql.run(BUMP_EPISODE_SQL, bumpParams(episodeId, row, t(row.startedAt), t(now)))) === 0) {
        const found = await sql.get(STATUS_SQL, [episodeId]);
        throw notRunning(episodeId, found === undefined ? undefined : statusRow.one(found).status);
      }
      const writer = pgTurnWriter(sql, now);
      writer.add(episodeId, row);
      try {
        await writer.flush();
      } catch (err) {
        if ((err as { code?: string }).code === "23505") throw turnTaken(episodeId, row.index);
        throw err;
      }
      if (messages) await insertTranscriptMessages(sql, episodeId, messages);
      return { index: row.index };
    });
  } catch (err) {
    throw toStorageError(err, storeName());
  }
}

/** How an episode ended, as finishEpisode stores it (the model loop's account of an episode is lib/episodes/agent-event.ts EpisodeOutcome). */
export type EpisodeFinish =
  | {
      status: "submitted";
      reward: number;
      breakdown?: unknown;
      success?: boolean;
      goldObservation?: string | null;
      agentObservation?: string | null;
      /** The turns the loop counted, when it stored one it leaves out (a forced final submit); else the stored turns. */
      turnsTaken?: number;
    }
  | { status: "abandoned"; reason?: string | null }
  | { status: "error"; reason: string };

/**
 * An episode's duration as the store keeps it: from the first action (the baseline clock starts
 * there, issue 4) to the end; an episode that took no action counts from when it was opened.
 * The live clock (components/play/clock.tsx) shows the same span.
 */
function episodeDurationMs({ firstActionAt, startedAt, endedAt }: { firstActionAt: Date | null; startedAt: Date; endedAt: Date }): number {
  return Math.max(0, endedAt.getTime() - (firstActionAt ?? startedAt).getTime());
}

const select = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(", ");
const FINISH_COLUMNS = ["status", "startedAt", "firstActionAt", "turnCount"] as const;
const finishRow = recordParser("Episode", FINISH_COLUMNS);

/**
 * Ends a running (or interrupted) episode: status, reward and breakdown, success (reward 1.0
 * reached unless given), the turn at which it was solved, end time and duration (from the first
 * action: see episodeDurationMs).
 */
export async function finishEpisode({ episodeId, outcome }: { episodeId: string; outcome: EpisodeFinish }): Promise<Episode> {
  return withWriteLock(() =>
    withPrisma(async (prisma) => {
      const found = await withSql((sql) => sql.get(`SELECT ${select(FINISH_COLUMNS)} FROM "Episode" WHERE "id" = ?`, [episodeId]));
      if (!found) throw new NotFoundError(`episode ${episodeId}`);
      const ep = finishRow.one(found);
      if (ep.status !== "running" && ep.status !== "interrupted") throw new ConflictError(`episode ${episodeId} already ended (${ep.status})`);
      const endedAt = new Date();
      const base = { endedAt, durationMs: episodeDurationMs({ firstActionAt: ep.firstActionAt, startedAt: ep.startedAt, endedAt }), status: outcome.status };
      let data;
      if (outcome.status === "submitted") {
        if (!(outcome.reward >= 0 && outcome.reward <= 1)) throw new BadInputError("must be within [0, 1]", "reward");
        const success = outcome.success ?? outcome.reward >= 1;
        data = {
          ...base,
          reward: outcome.reward,
          breakdown: outcome.breakdown === undefined ? null : JSON.stringify(outcome.breakdown),
          success,
          solvedAtTurn: success ? Math.max(1, outcome.turnsTaken ?? ep.turnCount) : null,
          goldObservation: outcome.goldObservation ?? null,
          agentObservation: outcome.agentObservation ?? null,
          ...(outcome.turnsTaken !== undefined ? { turnsTaken: outcome.turnsTaken } : {}),
        };
      } else {
        data = { ...base, errorReason: outcome.status === "error" ? outcome.reason : (outcome.reason ?? null) };
      }
      return prisma.episode.update({ where: { id: episodeId }, data });
    }),
  );
}

/** An episode with its turns (in order) and its annotations. */
export type EpisodeWithTurns = Episode & { turns: Turn[]; annotations: Annotation[] };

/** One episode with its turns and annotations, or null. */
export async function getEpisodeById({ id }: { id: string }): Promise<EpisodeWithTurns | null> {
  return withSql(async (sql) => {
    const found = await sql.get(`SELECT ${selectAll("Episode")} FROM "Episode" WHERE "id" = ?`, [id]);
    if (!found) return null;
    const turns = await sql.all(`SELECT ${selectAll("Turn")} FROM "Turn" WHERE "episodeId" = ? ORDER BY "index"`, [id]);
    const annotations = await sql.all(`SELECT ${selectAll("Annotation")} FROM "Annotation" WHERE "episodeId" = ? ORDER BY "createdAt"`, [id]);
    return { ...episodeRecord.one(found), turns: turnRecord.all(turns), annotations: annotationRecord.all(annotations) };
  });
}

const episodeRecord = recordParser("Episode", columnsOf("Episode"));
const turnRecord = recordParser("Turn", columnsOf("Turn"));
const annotationRecord = recordParser("Annotation", columnsOf("Annotation"));

/**
 * At start-up: every episode still marked running was cut off by a crash or a stop. Marks them
 * interrupted (they keep every stored turn and can be resumed). Returns how many. Episodes of a
 * run handed to a queue are left alone: queue workers play them, not this process (a worker that
 * died has its episode marked by the worker that takes the job next).
 */
export async function markInterruptedEpisodes(): Promise<number> {
  return withWriteLock(() =>
    withPrisma(async (prisma) => {
      return (await prisma.episode.updateMany({ where: { status: "running", ...NOT_QUEUED_EPISODE }, data: { status: "interrupted" } })).count;
    }),
  );
}

/** Marks an interrupted episode running again; returns it with its turns so play can go on. */
export async function resumeEpisode({ id }: { id: string }): Promise<EpisodeWithTurns> {
  await withWriteLock(() =>
    withPrisma(async (prisma) => {
      const r = await prisma.episode.updateMany({ where: { id, status: "interrupted" }, data: { status: "running" } });
      if (r.count === 0) {
        const found = await withSql((sql) => sql.get(STATUS_SQL, [id]));
        if (!found) throw new NotFoundError(`episode ${id}`);
        throw new ConflictError(`episode ${id} is ${statusRow.one(found).status}: only an interrupted episode can be resumed`);
      }
    }),
  );
  return (await getEpisodeById({ id }))!;
}

/** Deletes an episode with its turns and annotations. */
export async function deleteEpisodeById({ id }: { id: string }): Promise<void> {
  await withWriteLock(() =>
    withPrisma(async (prisma) => {
      const r = await prisma.episode.deleteMany({ where: { id } });
      if (r.count === 0) throw new NotFoundError(`episode ${id}`);
    }),
  );
}

export interface ListEpisodesInput {
  filters?: EpisodeFilters;
  sort?: { key: EpisodeSortKey; dir?: "asc" | "desc" };
  /** 1-based. */
  page?: number;
  pageSize?: number;
  /** Full-text search (also accepted inside filters). */
  search?: string;
  /** Count every match (else past COUNT_EXACT_UP_TO the total is estimated). */
  exactCount?: boolean;
}

export interface EpisodePage<Row = EpisodeListRow> {
  rows: Row[];
  /** Matching episodes; an estimate when totalExact is false. */
  total: number;
  /** False when `total` is estimated (many matches and no exact count asked for). */
  totalExact: boolean;
  page: number;
  pageSize: number;
}

/** Largest page the list serves. */
export const MAX_PAGE_SIZE = 500;

const LIST_SELECT = LIST_COLUMNS.map((c) => (c === "query" ? `substr(e."query", 1, 200) AS "query"` : `e."${c}"`)).join(", ");
const listRow = rowParser("Episode", LIST_COLUMNS);
type ListRow = ReturnType<typeof listRow.one>;

function toListRow(r: ListRow): EpisodeListRow {
  return { ...r, tags: words(r.tags), flags: words(r.flags), startedAt: new Date(r.startedAt) };
}

function toViewerRow({ hardness: _h, runId: _r, ...r }: ListRow): ViewerRow {
  return { ...r, tags: words(r.tags), flags: words(r.flags) };
}

/**
 * The one reader of the episode lists (the store's and the viewer's): filtered (every column,
 * full-text search), sorted on any key of EPISODE_SORTS, counted and paged by the planner
 * (readEpisodePage). Ties break on id so paging is stable.
 */
async function readEpisodeList({
  filters,
  key,
  dir,
  page,
  pageSize,
  exactCount = false,
}: {
  filters: EpisodeFilters;
  key: string;
  dir: "asc" | "desc";
  page: number;
  pageSize: number;
  exactCount?: boolean;
}) {
  if (!Number.isInteger(page) || page < 1) throw new BadInputError("must be a positive integer", "page");
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new BadInputError(`must be 1..${MAX_PAGE_SIZE}`, "pageSize");
  if (!isEpisodeSortKey(key)) throw new BadInputError(`unknown sort key; one of ${Object.keys(EPISODE_SORTS).join(", ")}`, "sort");
  const store = config().store;
  return withSql(async (sql) => {
    const { parts, params, fts } = listConditions(filters, sql.dialect);
    const { total, totalExact, rows } = await readEpisodePage(sql, {
      parts,
      params,
      fts,
      sort: EPISODE_SORTS[key],
      dir: dir === "asc" ? "ASC" : "DESC",
      page,
      pageSize,
      columns: LIST_SELECT,
      // Success is reward 1.0: those two are not independent, so the walk estimate does not hold.
      correlated: key === "reward" && filters.success !== undefined,
      countIndex: statsIndexCovers(filters),
      exactCount,
      oneColumn: oneColumnFilter(filters),
      heldStore: store.kind === "postgresql" ? store.url : undefined,
    });
    return { total, totalExact, rows: listRow.all(rows) };
  });
}

/**
 * One page of the episode list, filtered, searched (full-text over query, actions and
 * observations) and sorted on the server, with the total count of matching episodes.
 */
export async function listEpisodes(input: ListEpisodesInput = {}): Promise<EpisodePage> {
  const page = input.page ?? 1;
  const pageSize = input.pageSize ?? 50;
  const search = input.search ?? input.filters?.search;
  const { total, totalExact, rows } = await readEpisodeList({
    filters: { ...input.filters, search },
    key: input.sort?.key ?? "startedAt",
    dir: input.sort?.dir ?? "desc",
    page,
    pageSize,
    exactCount: input.exactCount,
  });
  return { total, totalExact, page, pageSize, rows: rows.map(toListRow) };
}

/** The same page as the viewer's table shows it (plain JSON: times in Unix milliseconds). */
export async function listViewerEpisodes({
  filters = {},
  sort = "startedAt",
  dir = "desc",
  page = 1,
  pageSize = 50,
  exactCount = false,
}: {
  filters?: EpisodeFilters;
  sort?: EpisodeSortKey;
  dir?: "asc" | "desc";
  page?: number;
  pageSize?: number;
  /** Count every match (else past COUNT_EXACT_UP_TO the total is estimated). */
  exactCount?: boolean;
}): Promise<EpisodePage<ViewerRow>> {
  const { total, totalExact, rows } = await readEpisodeList({ filters, key: sort, dir, page, pageSize, exactCount });
  return { total, totalExact, page, pageSize, rows: rows.map(toViewerRow) };
}

/** Every episode of one task (any dataset of that environment when dataset is omitted), for the task page. */
export async function listViewerEpisodesByTask({
  environment,
  dataset,
  taskId,
}: {
  environment: string;
  dataset?: string;
  taskId: string;
}): Promise<ViewerRow[]> {
  return withSql(async (sql) =>
    listRow
      .all(
        await sql.all(
          `SELECT ${LIST_SELECT} FROM "Episode" e WHERE e."environment" = @environment AND e."taskId" = @taskId ${dataset ? `AND e."dataset" = @dataset` : ""}
           ORDER BY e."playerKind", COALESCE(e."annotator", e."model"), e."startedAt" DESC LIMIT 1000`,
          { environment, taskId, ...(dataset ? { dataset } : {}) },
        ),
      )
      .map(toViewerRow),
  );
}
