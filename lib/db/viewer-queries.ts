import "server-only";
import { BadInputError } from "@/lib/errors";
import type { Dialect } from "./dialect";
import {
  buildEpisodeConditions,
  EPISODE_SORTS,
  isEpisodeSortKey,
  readEpisodePage,
  statsIndexCovers,
  toSearchQuery,
  type EpisodeFilters,
  type EpisodeSortKey,
} from "./episode-filters";
import type { ReplayAnnotation, ReplayData, ReplayTurn, ViewerRow } from "./episode-rows";
import { withSql } from "./sql";

/** Filters of the viewer: the store's, plus a minimum count of invalid actions. */
export type ViewerFilters = EpisodeFilters & { invalidMin?: number };

/** The viewer's filters as conditions over `Episode e` (the search apart), with their parameters. */
function conditionsOf(f: ViewerFilters, d: Dialect): { parts: string[]; params: Record<string, unknown>; fts: string | null } {
  const { invalidMin, search, ...rest } = f;
  const { parts, params } = buildEpisodeConditions(rest, d);
  if (invalidMin !== undefined) {
    if (!Number.isFinite(invalidMin)) throw new BadInputError("must be a finite number", "filter invalidMin");
    parts.push(`e."invalidCount" >= @invalidMin`);
    params.invalidMin = invalidMin;
  }
  return { parts, params, fts: search === undefined ? null : toSearchQuery(search, d) };
}

/**
 * The FROM and WHERE of an aggregate over the viewer's filtered set (`Episode e`). Full-text
 * search drives it from the matching episodes' keys (a CTE joined to Episode) rather than testing
 * every episode against that set, which SQLite plans poorly.
 */
function whereOf(f: ViewerFilters, d: Dialect): { cte: string; from: string; sql: string; params: Record<string, unknown> } {
  const { parts, params, fts } = conditionsOf(f, d);
  let cte = "";
  let from = `"Episode" e`;
  if (fts) {
    params.fts = fts;
    cte = `WITH hits("k") AS (${d.searchHits("@fts")})`;
    from = `hits h ${d.drivingJoin} "Episode" e ON e."searchKey" = h."k"`;
  }
  return { cte, from, sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

export interface ViewerPage {
  rows: ViewerRow[];
  total: number;
  page: number;
  pageSize: number;
}

const ROW_COLS = `e."id", e."environment", e."dataset", e."taskId", e."taskIndex", substr(e."query", 1, 200) AS "query", e."playerKind",
  e."annotator", e."model", e."policy", e."status", e."reward", e."success", e."turnCount", e."invalidCount", e."turnLimit",
  e."durationMs", e."tags", e."flags", e."startedAt", e."parentEpisodeId"`;

function toRow(r: Record<string, unknown>): ViewerRow {
  return {
    ...(r as unknown as ViewerRow),
    success: r.success === 1,
    tags: r.tags ? String(r.tags).split(" ").filter(Boolean) : [],
    flags: r.flags ? String(r.flags).split(" ").filter(Boolean) : [],
    startedAt: Number(r.startedAt),
  };
}

/**
 * One page of the episode table: filtered (every column, FTS5 search), sorted on any column and
 * counted on the server. Ties break on id so paging is stable.
 */
export async function listViewerEpisodes({
  filters = {},
  sort = "startedAt",
  dir = "desc",
  page = 1,
  pageSize = 50,
}: {
  filters?: ViewerFilters;
  sort?: EpisodeSortKey;
  dir?: "asc" | "desc";
  page?: number;
  pageSize?: number;
}): Promise<ViewerPage> {
  if (!isEpisodeSortKey(sort)) throw new BadInputError(`unknown sort; one of ${Object.keys(EPISODE_SORTS).join(", ")}`, "sort");
  if (!Number.isInteger(page) || page < 1) throw new BadInputError("must be a positive integer", "page");
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 500) throw new BadInputError("must be 1..500", "pageSize");
  return withSql(async (sql) => {
    const { parts, params, fts } = conditionsOf(filters, sql.dialect);
    const { total, rows } = await readEpisodePage(sql, {
      parts,
      params,
      fts,
      sort: EPISODE_SORTS[sort],
      dir: dir === "asc" ? "ASC" : "DESC",
      page,
      pageSize,
      columns: ROW_COLS,
      correlated: sort === "reward" && filters.success !== undefined,
      countIndex: statsIndexCovers(filters),
    });
    return { total, page, pageSize, rows: rows.map(toRow) };
  });
}

/** The distinct values of the filterable text columns (for the filter pickers). */
export async function listEpisodeFacets(): Promise<Record<"environment" | "dataset" | "playerKind" | "model" | "policy" | "annotator" | "status" | "hardness", string[]>> {
  const cols = ["environment", "dataset", "playerKind", "model", "policy", "annotator", "status", "hardness"] as const;
  return withSql(async (sql) => {
    const out = {} as Record<(typeof cols)[number], string[]>;
    for (const c of cols) {
      out[c] = (await sql.all<{ v: string }>(`SELECT DISTINCT "${c}" AS v FROM "Episode" WHERE "${c}" IS NOT NULL ORDER BY 1 LIMIT 200`)).map((r) => r.v);
    }
    return out;
  });
}

const player = (r: { annotator?: unknown; model?: unknown; policy?: unknown; playerKind?: unknown }) =>
  r.annotator ? String(r.annotator) : r.model ? `${r.model}${r.policy ? ` · ${r.policy}` : ""}` : String(r.playerKind ?? "");

/** One episode with its turns, annotations and lineage, or null. Indexed lookups only. */
export async function getReplayDataById({ id }: { id: string }): Promise<ReplayData | null> {
  return withSql(async (sql) => {
    const e = await sql.get(`SELECT * FROM "Episode" WHERE "id" = ?`, [id]);
    if (!e) return null;
    const turns = (await sql.all(`SELECT * FROM "Turn" WHERE "episodeId" = ? ORDER BY "index"`, [id])).map(
      (t): ReplayTurn => ({
        index: Number(t.index),
        actor: String(t.actor),
        action: String(t.action),
        observation: String(t.observation),
        ok: t.ok === null ? null : t.ok === 1,
        reward: (t.reward as number | null) ?? null,
        thought: (t.thought as string | null) ?? null,
        tokensIn: (t.tokensIn as number | null) ?? null,
        tokensOut: (t.tokensOut as number | null) ?? null,
        durationMs: (t.durationMs as number | null) ?? null,
        latencyMs: (t.latencyMs as number | null) ?? null,
        costUsd: (t.costUsd as number | null) ?? null,
        timedOut: t.timedOut === 1,
        aborted: t.aborted === 1,
        source: (t.source as string | null) ?? null,
      }),
    );
    const annotations = (await sql.all(`SELECT * FROM "Annotation" WHERE "episodeId" = ? ORDER BY "createdAt"`, [id])).map(
      (a): ReplayAnnotation => ({
        id: String(a.id),
        turnIndex: (a.turnIndex as number | null) ?? null,
        kind: String(a.kind),
        tag: (a.tag as string | null) ?? null,
        text: (a.text as string | null) ?? null,
        author: String(a.author),
        status: String(a.status),
        createdAt: Number(a.createdAt),
      }),
    );
    const parentRow = e.parentEpisodeId
      ? await sql.get(`SELECT "id", "reward", "success", "annotator", "model", "policy", "playerKind" FROM "Episode" WHERE "id" = ?`, [e.parentEpisodeId])
      : undefined;
    const children = await sql.all(
      `SELECT "id", "branchTurn", "reward", "status", "annotator", "model", "policy", "playerKind" FROM "Episode" WHERE "parentEpisodeId" = ? ORDER BY "startedAt"`,
      [id],
    );
    let breakdown: unknown = null;
    if (e.breakdown) {
      try {
        breakdown = JSON.parse(String(e.breakdown));
      } catch {
        breakdown = null;
      }
    }
    return {
      episode: {
        id: String(e.id),
        environment: String(e.environment),
        dataset: String(e.dataset),
        taskId: String(e.taskId),
        taskIndex: (e.taskIndex as number | null) ?? null,
        query: String(e.query),
        gold: (e.gold as string | null) ?? null,
        playerKind: String(e.playerKind),
        annotator: (e.annotator as string | null) ?? null,
        model: (e.model as string | null) ?? null,
        policy: (e.policy as string | null) ?? null,
        turnLimit: Number(e.turnLimit),
        mode: String(e.mode),
        status: String(e.status),
        errorReason: (e.errorReason as string | null) ?? null,
        reward: (e.reward as number | null) ?? null,
        breakdown,
        success: e.success === 1,
        solvedAtTurn: (e.solvedAtTurn as number | null) ?? null,
        goldObservation: (e.goldObservation as string | null) ?? null,
        agentObservation: (e.agentObservation as string | null) ?? null,
        startedAt: Number(e.startedAt),
        durationMs: (e.durationMs as number | null) ?? null,
        sourceFile: (e.sourceFile as string | null) ?? null,
        hardness: (e.hardness as string | null) ?? null,
        db: (e.db as string | null) ?? null,
        tags: e.tags ? String(e.tags).split(" ").filter(Boolean) : [],
        flags: e.flags ? String(e.flags).split(" ").filter(Boolean) : [],
        turnsTaken: (e.turnsTaken as number | null) ?? null,
        parentEpisodeId: (e.parentEpisodeId as string | null) ?? null,
        branchTurn: (e.branchTurn as number | null) ?? null,
      },
      turns,
      annotations,
      parent: parentRow ? { id: String(parentRow.id), reward: (parentRow.reward as number | null) ?? null, success: parentRow.success === 1, player: player(parentRow) } : null,
      children: children.map((c) => ({
        id: String(c.id),
        branchTurn: (c.branchTurn as number | null) ?? null,
        reward: (c.reward as number | null) ?? null,
        status: String(c.status),
        player: player(c),
      })),
    };
  });
}

/** Several episodes for the compare view, in the order asked; unknown ids are left out. */
export async function listReplayDataByIds({ ids }: { ids: string[] }): Promise<ReplayData[]> {
  const out: ReplayData[] = [];
  for (const id of ids) {
    const d = await getReplayDataById({ id });
    if (d) out.push(d);
  }
  return out;
}

/** Every episode of one task (any dataset of that environment when dataset is omitted), for the task page. */
export async function listViewerEpisodesByTask({ environment, dataset, taskId }: { environment: string; dataset?: string; taskId: string }): Promise<ViewerRow[]> {
  return withSql(async (sql) =>
    (
      await sql.all(
        `SELECT ${ROW_COLS} FROM "Episode" e WHERE e."environment" = @environment AND e."taskId" = @taskId ${dataset ? `AND e."dataset" = @dataset` : ""}
         ORDER BY e."playerKind", COALESCE(e."annotator", e."model"), e."startedAt" DESC LIMIT 1000`,
        { environment, taskId, ...(dataset ? { dataset } : {}) },
      )
    ).map(toRow),
  );
}

/** Every tag name used in annotations, with how often it is accepted (the user-extended taxonomy). */
export async function listUsedTags(): Promise<{ tag: string; accepted: number }[]> {
  return withSql((sql) =>
    sql.all<{ tag: string; accepted: number }>(
      `SELECT "tag", SUM(CASE WHEN "status" = 'accepted' THEN 1 ELSE 0 END) AS accepted FROM "Annotation" WHERE "kind" = 'tag' AND "tag" IS NOT NULL GROUP BY "tag" ORDER BY accepted DESC, "tag"`,
    ),
  );
}

/** Aggregates for a filtered set that the paper's statistics do not cover. */
export interface ViewerAggregates {
  /** Ten reward bins [0, 0.1), ..., [0.9, 1.0]; plus episodes with no reward. */
  rewardHistogram: { bin: string; episodes: number }[];
  /** Per turn position (1-based): turns with a known outcome and how many were invalid. */
  invalidByTurn: { turn: number; checked: number; invalid: number; rate: number }[];
  /** Accepted tags over the filtered set. */
  tags: { tag: string; episodes: number }[];
}

/** Reward histogram, invalid-action rate by turn and tag counts over the episodes matching `filters`. */
export async function aggregateViewerEpisodes({ filters = {} }: { filters?: ViewerFilters }): Promise<ViewerAggregates> {
  return withSql(async (sql) => {
    const { cte, from, sql: where, params } = whereOf(filters, sql.dialect);
    const bin = sql.dialect.trunc(`e."reward" * 10`);
    const hist = await sql.all<{ b: number; n: number }>(
      `${cte} SELECT CASE WHEN e."reward" IS NULL THEN -1 WHEN ${bin} > 9 THEN 9 ELSE ${bin} END AS b, COUNT(*) AS n FROM ${from} ${where} GROUP BY 1`,
      params,
    );
    const bins = Array.from({ length: 10 }, (_, i) => ({ bin: `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`, episodes: 0 }));
    let none = 0;
    for (const h of hist) {
      if (h.b < 0) none = h.n;
      else bins[Math.max(0, h.b)].episodes += h.n;
    }
    const rewardHistogram = none ? [...bins, { bin: "none", episodes: none }] : bins;
    const inv = await sql.all<{ turn: number; checked: number; invalid: number | null }>(
      `${cte} SELECT t."index" + 1 AS turn, COUNT(t."ok") AS checked, SUM(CASE WHEN NOT t."ok" THEN 1 ELSE 0 END) AS invalid FROM "Turn" t
       WHERE t."episodeId" IN (SELECT e."id" FROM ${from} ${where}) GROUP BY t."index" ORDER BY t."index" LIMIT 100`,
      params,
    );
    const invalidByTurn = inv.map((r) => ({ turn: r.turn, checked: r.checked, invalid: r.invalid ?? 0, rate: r.checked ? (r.invalid ?? 0) / r.checked : 0 }));
    const tagRows = await sql.all<{ tag: string; episodes: number }>(
      `${cte} SELECT a."tag" AS tag, COUNT(DISTINCT a."episodeId") AS episodes FROM "Annotation" a
       WHERE a."kind" = 'tag' AND a."status" = 'accepted' AND a."episodeId" IN (SELECT e."id" FROM ${from} ${where})
       GROUP BY a."tag" ORDER BY episodes DESC, a."tag" LIMIT 30`,
      params,
    );
    return { rewardHistogram, invalidByTurn, tags: tagRows };
  });
}
