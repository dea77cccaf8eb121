import "server-only";
import { z } from "zod";
import { curveBucket, TURN_CUT, WINDOW_CUT, WINDOW_TURNS, windowStart } from "./replay-window";
import {
  REPLAY_EPISODE,
  type ReplayAnnotation,
  type ReplayData,
  type ReplayHeader,
  type ReplayTurn,
  type RewardCurvePoints,
  type TurnWindow,
  type WindowTurn,
} from "./episode-rows";
import { rowParser, words } from "./rows";
import { withSql } from "./sql";
import { TURN_RECORD_KEYS } from "./record";

/**
 * The distinct values of the filterable text columns (for the filter pickers), at most 200 each.
 * Each column leads an index, and its values are read by skipping from one to the next (MIN above
 * the last one: one index probe per distinct value) rather than by DISTINCT, which reads every
 * episode's entry: PostgreSQL has no skip scan, and at a million episodes the eight DISTINCTs were
 * most of a list page there. One statement for all eight (one round trip).
 */
export async function listEpisodeFacets(): Promise<
  Record<"environment" | "dataset" | "playerKind" | "model" | "policy" | "annotator" | "status" | "hardness", string[]>
> {
  const cols = ["environment", "dataset", "playerKind", "model", "policy", "annotator", "status", "hardness"] as const;
  const walk = (c: string, i: number) =>
    `f${i}("n", "v") AS (SELECT 1, (SELECT MIN("${c}") FROM "Episode") UNION ALL SELECT f${i}."n" + 1, (SELECT MIN("${c}") FROM "Episode" WHERE "${c}" > f${i}."v") FROM f${i} WHERE f${i}."v" IS NOT NULL AND f${i}."n" < 200)`;
  const union = cols.map((_, i) => `SELECT ${i} AS "c", "n", "v" FROM f${i} WHERE "v" IS NOT NULL`).join(" UNION ALL ");
  return withSql(async (sql) => {
    const rows = await sql.all<{ c: number; n: number; v: string }>(`WITH RECURSIVE ${cols.map(walk).join(", ")} ${union} ORDER BY 1, 2`);
    const out = Object.fromEntries(cols.map((c) => [c, [] as string[]])) as Record<(typeof cols)[number], string[]>;
    for (const r of rows) out[cols[Number(r.c)]!].push(r.v);
    return out;
  });
}

/** Who played, in words: the annotator, else the model and its policy, else the player kind. */
const player = (r: { annotator: string | null; model: string | null; policy: string | null; playerKind: string }) =>
  r.annotator || (r.model ? `${r.model}${r.policy ? ` · ${r.policy}` : ""}` : r.playerKind);

/** The replay's columns of each table, parsed by the one row schema (rows come out in the replay's shapes). */
/** The replay's turn (episode-rows.ts ReplayTurn): the record's columns but the raw reply and start time. */
const REPLAY_TURN = TURN_RECORD_KEYS.filter(
  (c): c is Exclude<(typeof TURN_RECORD_KEYS)[number], "rawReply" | "startedAt"> => c !== "rawReply" && c !== "startedAt",
);
const REPLAY_ANNOTATION = ["id", "turnIndex", "kind", "tag", "text", "author", "status", "source", "createdAt"] as const;
const LINEAGE = ["id", "branchTurn", "reward", "success", "status", "annotator", "model", "policy", "playerKind"] as const;
const select = (cols: readonly string[]) => cols.map((c) => `"${c}"`).join(", ");
const episodeRow = rowParser("Episode", REPLAY_EPISODE);
const turnRow = rowParser("Turn", REPLAY_TURN);
const annotationRow = rowParser("Annotation", REPLAY_ANNOTATION);
const lineageRow = rowParser("Episode", LINEAGE);

type Conn = Parameters<Parameters<typeof withSql>[0]>[0];

/** The episode row, annotations and lineage (no turns), or null. Indexed lookups only. */
async function readHeader(sql: Conn, id: string): Promise<Omit<ReplayData, "turns"> | null> {
  const found = await sql.get(`SELECT ${select(REPLAY_EPISODE)} FROM "Episode" WHERE "id" = ?`, [id]);
  if (!found) return null;
  const e = episodeRow.one(found);
  const annotations: ReplayAnnotation[] = annotationRow.all(
    await sql.all(`SELECT ${select(REPLAY_ANNOTATION)} FROM "Annotation" WHERE "episodeId" = ? ORDER BY "createdAt"`, [id]),
  );
  const parentFound = e.parentEpisodeId ? await sql.get(`SELECT ${select(LINEAGE)} FROM "Episode" WHERE "id" = ?`, [e.parentEpisodeId]) : undefined;
  const parentRow = parentFound ? lineageRow.one(parentFound) : undefined;
  const children = lineageRow.all(await sql.all(`SELECT ${select(LINEAGE)} FROM "Episode" WHERE "parentEpisodeId" = ? ORDER BY "startedAt"`, [id]));
  let breakdown: unknown = null;
  if (e.breakdown) {
    try {
      breakdown = JSON.parse(e.breakdown);
    } catch {
      breakdown = null;
    }
  }
  return {
    episode: { ...e, breakdown, tags: words(e.tags), flags: words(e.flags) },
    annotations,
    parent: parentRow ? { id: parentRow.id, reward: parentRow.reward, success: parentRow.success, player: player(parentRow) } : null,
    children: children.map((c) => ({ id: c.id, branchTurn: c.branchTurn, reward: c.reward, status: c.status, player: player(c) })),
  };
}

/** One episode with all its turns, annotations and lineage, or null (the server jobs that replay every turn). */
export async function getReplayDataById({ id }: { id: string }): Promise<ReplayData | null> {
  return withSql(async (sql) => {
    const header = await readHeader(sql, id);
    if (!header) return null;
    const turns: ReplayTurn[] = turnRow.all(await sql.all(`SELECT ${select(REPLAY_TURN)} FROM "Turn" WHERE "episodeId" = ? ORDER BY "index"`, [id]));
    return { ...header, turns };
  });
}

const WINDOW_COLS = REPLAY_TURN.filter((c) => c !== "observation");
const windowRow = rowParser("Turn", REPLAY_TURN, { observationChars: z.coerce.number().int().nonnegative() });

/** Turns `from`..`from + limit - 1` of an episode, each observation cut to `cut` characters (null: whole). */
async function readWindow(sql: Conn, episodeId: string, from: number, limit: number, cut: number | null): Promise<WindowTurn[]> {
  const obs = cut === null ? `"observation"` : `substr("observation", 1, ${Math.floor(cut)}) AS "observation"`;
  return windowRow.all(
    await sql.all(
      `SELECT ${select(WINDOW_COLS)}, ${obs}, length("observation") AS "observationChars" FROM "Turn" WHERE "episodeId" = ? AND "index" >= ? ORDER BY "index" LIMIT ?`,
      [episodeId, from, limit],
    ),
  );
}

/**
 * The turn count and the reward curve's points: one per `curveBucket(count)` turns, the highest
 * recorded reward in the bucket. Read from the (episodeId, index, reward) index, never the turns' text.
 */
async function readCurve(sql: Conn, episodeId: string, withPoints: boolean): Promise<{ turnCount: number; curve: RewardCurvePoints }> {
  const n = (await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "Turn" WHERE "episodeId" = ?`, [episodeId]))?.n ?? 0;
  const turnCount = Number(n);
  const bucket = curveBucket(turnCount);
  if (!withPoints) return { turnCount, curve: { bucket, points: [] } };
  const rows = await sql.all<{ turn: number; reward: number | null }>(
    `SELECT MIN("index") AS turn, MAX("reward") AS reward FROM "Turn" WHERE "episodeId" = ? GROUP BY "index" / ${bucket} ORDER BY 1`,
    [episodeId],
  );
  return { turnCount, curve: { bucket, points: rows.map((r) => ({ turn: Number(r.turn), reward: r.reward === null ? null : Number(r.reward) })) } };
}

/**
 * What the replay page receives of an episode, or null: its header, turn count, the reward curve's
 * aggregate and the window of turns around `turn` (0-based), observations cut to `WINDOW_CUT`
 * characters except the turn's own (`TURN_CUT`); `size` 0 reads no turns and no curve. Its cost does not grow
 * with the episode.
 */
export async function getReplayHeaderById({
  id,
  turn = 0,
  size = WINDOW_TURNS,
  cut = WINDOW_CUT,
}: {
  id: string;
  turn?: number;
  size?: number;
  cut?: number;
}): Promise<ReplayHeader | null> {
  return withSql(async (sql) => {
    const header = await readHeader(sql, id);
    if (!header) return null;
    const { turnCount, curve } = await readCurve(sql, id, size > 0);
    const at = Math.max(0, Math.min(turnCount - 1, turn));
    const from = windowStart(at, turnCount, size);
    const turns = size > 0 ? await readWindow(sql, id, from, size, cut) : [];
    const own = turnCount && size > 0 ? (await readWindow(sql, id, at, 1, TURN_CUT))[0] : undefined;
    return { ...header, turnCount, curve, window: { from, turns: turns.map((t) => (own && t.index === own.index ? own : t)) } };
  });
}

/** Turns `from`.. of an episode (at most `limit`), observations cut to `cut` characters or whole (null). */
export async function listTurnWindowByEpisode({
  episodeId,
  from,
  limit,
  cut,
}: {
  episodeId: string;
  from: number;
  limit: number;
  cut: number | null;
}): Promise<TurnWindow> {
  return withSql(async (sql) => ({ from, turns: await readWindow(sql, episodeId, from, limit, cut) }));
}

/** Several episodes' headers and first windows for the compare view, in the order asked; unknown ids are left out. */
export async function listReplayHeadersByIds({ ids, cut }: { ids: string[]; cut?: number }): Promise<ReplayHeader[]> {
  const out: ReplayHeader[] = [];
  for (const id of ids) {
    const d = await getReplayHeaderById({ id, cut });
    if (d) out.push(d);
  }
  return out;
}

/** Every tag name used in annotations, with how often it is accepted (the user-extended taxonomy). */
export async function listUsedTags(): Promise<{ tag: string; accepted: number }[]> {
  return withSql((sql) =>
    sql.all<{ tag: string; accepted: number }>(
      `SELECT "tag", SUM(CASE WHEN "status" = 'accepted' THEN 1 ELSE 0 END) AS accepted FROM "Annotation" WHERE "kind" = 'tag' AND "tag" IS NOT NULL AND "source" = 'person' GROUP BY "tag" ORDER BY accepted DESC, "tag"`,
    ),
  );
}
