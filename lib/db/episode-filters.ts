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
 * Turns free text into an FTS5 query: each whitespace-separated word becomes a quoted phrase
 * (so punctuation such as `-`, `*` or `:` is searched literally) and all must match; a word
 * ending in `*` stays a prefix search.
 */
export function toFtsQuery(text: string): string | null {
  const words = text.split(/\s+/).filter(Boolean).slice(0, 16);
  if (!words.length) return null;
  return words
    .map((w) => {
      const prefix = w.length > 1 && w.endsWith("*");
      const body = (prefix ? w.slice(0, -1) : w).replace(/"/g, '""');
      return `"${body}"${prefix ? "*" : ""}`;
    })
    .join(" ");
}

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
    if (q) {
      const p = bind(q);
      parts.push(
        `e."id" IN (SELECT "episodeId" FROM "EpisodeSearch" WHERE "EpisodeSearch" MATCH ${p}` +
          ` UNION SELECT t."episodeId" FROM "Turn" t WHERE t."id" IN (SELECT rowid FROM "TurnSearch" WHERE "TurnSearch" MATCH ${p}))`,
      );
    }
  }
  for (const [k, v] of Object.entries(f)) {
    if (typeof v === "number" && !Number.isFinite(v)) throw new BadInputError("must be a finite number", `filter ${k}`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}
