import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "./episode-filters";
import type { Episode, Turn } from "./generated/client";
import { withSql } from "./sql";
import { listTranscriptMessagesByEpisodes, type TranscriptMessage } from "./transcripts";

const DATE_FIELDS = ["startedAt", "firstActionAt", "endedAt", "createdAt", "updatedAt"] as const;
const BOOL_FIELDS = ["success"] as const;

function episodeFromRow(r: Record<string, unknown>): Episode {
  const e = { ...r } as Record<string, unknown>;
  for (const f of DATE_FIELDS) e[f] = e[f] === null || e[f] === undefined ? null : new Date(Number(e[f]));
  for (const f of BOOL_FIELDS) e[f] = e[f] === 1;
  return e as unknown as Episode;
}

function turnFromRow(r: Record<string, unknown>): Turn {
  return {
    ...(r as unknown as Turn),
    ok: r.ok === null ? null : r.ok === 1,
    timedOut: r.timedOut === 1,
    aborted: r.aborted === 1,
    startedAt: r.startedAt === null ? null : new Date(Number(r.startedAt)),
    createdAt: new Date(Number(r.createdAt)),
  };
}

/**
 * Every episode matching the filters with its turns and its conversation with the model, in a
 * stable order (dataset, task index, id), read in batches so an export of any size holds one
 * batch in memory at a time.
 */
export async function* iterateEpisodesWithTurns({ filters = {}, batchSize = 500 }: { filters?: EpisodeFilters; batchSize?: number } = {}): AsyncGenerator<
  Episode & { turns: Turn[]; messages: TranscriptMessage[] }
> {
  let offset = 0;
  for (;;) {
    const batch = await withSql(async (q) => {
      const { sql, params } = buildEpisodeWhere(filters, q.dialect);
      // NULLs first on both engines (SQLite's order for an ascending sort).
      const eps = await q.all(
        `SELECT e.* FROM "Episode" e ${sql} ORDER BY e."environment", e."dataset", e."taskIndex"${q.dialect.name === "postgresql" ? " NULLS FIRST" : ""}, e."taskId", e."startedAt", e."id" LIMIT @limit OFFSET @offset`,
        { ...params, limit: batchSize, offset },
      );
      if (!eps.length) return [];
      const ids = eps.map((e) => e.id as string);
      const turns = await q.all(`SELECT * FROM "Turn" WHERE "episodeId" ${q.dialect.inList("?")} ORDER BY "episodeId", "index"`, [q.dialect.listValue(ids)]);
      const byEp = new Map<string, Turn[]>();
      for (const t of turns) {
        const list = byEp.get(t.episodeId as string) ?? [];
        list.push(turnFromRow(t));
        byEp.set(t.episodeId as string, list);
      }
      const messages = await listTranscriptMessagesByEpisodes(q, ids);
      return eps.map((e) => ({ ...episodeFromRow(e), turns: byEp.get(e.id as string) ?? [], messages: messages.get(e.id as string) ?? [] }));
    });
    if (!batch.length) return;
    yield* batch;
    offset += batch.length;
    if (batch.length < batchSize) return;
  }
}
