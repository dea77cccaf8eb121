import { BadInputError } from "@/lib/errors";

/** Filters shared by the episode list, statistics and export. Every field is optional. */
export interface EpisodeFilters {
  environment?: string | string[];
  dataset?: string | string[];
  model?: string | string[];
  policy?: string | string[];
  playerKind?: string | string[];
  annotator?: string | string[];
  status?: string | string[];
  hardness?: string | string[];
  taskId?: string | string[];
  runId?: string;
  studyId?: string;
  parentEpisodeId?: string;
  success?: boolean;
  /** An accepted tag the episode must carry. */
  tag?: string;
  rewardMin?: number;
  rewardMax?: number;
  turnsMin?: number;
  turnsMax?: number;
  turnLimit?: number;
  startedAfter?: Date;
  startedBefore?: Date;
  /** Full-text search over the query, the actions and the observations (FTS5). */
  search?: string;
}

const LIST_COLUMNS = ["environment", "dataset", "model", "policy", "playerKind", "annotator", "status", "hardness", "taskId"] as const;

/**
 * Turns free text into an FTS5 query: every word (letters and digits, as SQLite's unicode61
 * tokenizer splits them) must occur in the episode's text (its query, actions and observations,
 * one document per episode); a trailing `*` makes the last word a prefix. Punctuation is ignored, so user
 * input can never be FTS syntax. The index keeps no positions (detail=column), so there are no
 * phrase searches.
 */
export function toFtsQuery(text: string): string | null {
  const out: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const prefix = word.length > 1 && word.endsWith("*");
    const tokens = word.normalize("NFKC").split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    tokens.forEach((t, i) => out.push(`"${t}"${prefix && i === tokens.length - 1 ? "*" : ""}`));
  }
  return out.length ? out.slice(0, 32).join(" ") : null;
}

/**
 * The search keys (Episode."searchKey") of the episodes whose text matches an FTS5 query bound as
 * `param`. Each episode has one document: its query and all its turns' actions and observations.
 */
export function searchHitsSql(param: string): string {
  return `SELECT rowid AS "k" FROM "EpisodeText" WHERE "EpisodeText" MATCH ${param}`;
}

/** How many episodes match an FTS5 query (one index lookup, no table rows). */
export function countSearchHits(db: { prepare(sql: string): { get(...args: unknown[]): unknown } }, fts: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM "EpisodeText" WHERE "EpisodeText" MATCH ?`).get(fts) as { n: number }).n;
}

/**
 * Up to this many full-text hits, a list query is best driven from the hits (a join on the
 * integer key); above it, from the sort order, testing each episode's key against the hit set
 * (written `+e."searchKey" IN (...)` so SQLite does not drive from the hits anyway).
 */
export const SEARCH_DRIVE_LIMIT = 5000;

/** Builds a parameterised WHERE clause over `Episode` aliased `e`. */
export function buildEpisodeWhere(f: EpisodeFilters = {}): { sql: string; params: Record<string, unknown> } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  let n = 0;
  const bind = (v: unknown) => {
    const k = `p${n++}`;
    params[k] = v;
    return `@${k}`;
  };
  for (const col of LIST_COLUMNS) {
    const v = f[col];
    if (v === undefined) continue;
    const vals = Array.isArray(v) ? v : [v];
    if (!vals.length) continue;
    parts.push(vals.length === 1 ? `e."${col}" = ${bind(vals[0])}` : `e."${col}" IN (${vals.map(bind).join(", ")})`);
  }
  if (f.runId) parts.push(`e."runId" = ${bind(f.runId)}`);
  if (f.studyId) parts.push(`e."studyId" = ${bind(f.studyId)}`);
  if (f.parentEpisodeId) parts.push(`e."parentEpisodeId" = ${bind(f.parentEpisodeId)}`);
  if (f.success !== undefined) parts.push(`e."success" = ${bind(f.success ? 1 : 0)}`);
  if (f.tag) parts.push(`(' ' || e."tags" || ' ') LIKE ${bind(`% ${f.tag.replace(/[%_\s]/g, "")} %`)}`);
  if (f.rewardMin !== undefined) parts.push(`e."reward" >= ${bind(f.rewardMin)}`);
  if (f.rewardMax !== undefined) parts.push(`e."reward" <= ${bind(f.rewardMax)}`);
  if (f.turnsMin !== undefined) parts.push(`e."turnCount" >= ${bind(f.turnsMin)}`);
  if (f.turnsMax !== undefined) parts.push(`e."turnCount" <= ${bind(f.turnsMax)}`);
  if (f.turnLimit !== undefined) parts.push(`e."turnLimit" = ${bind(f.turnLimit)}`);
  if (f.startedAfter) parts.push(`e."startedAt" >= ${bind(f.startedAfter.getTime())}`);
  if (f.startedBefore) parts.push(`e."startedAt" < ${bind(f.startedBefore.getTime())}`);
  if (f.search !== undefined) {
    const q = toFtsQuery(f.search);
    if (q) parts.push(`e."searchKey" IN (${searchHitsSql(bind(q))})`);
  }
  for (const [k, v] of Object.entries(f)) {
    if (typeof v === "number" && !Number.isFinite(v)) throw new BadInputError("must be a finite number", `filter ${k}`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}
