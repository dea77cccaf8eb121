import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "./episode-filters";
import type { Episode, Turn } from "./generated/client";
import { withRaw } from "./sqlite";
import { listTranscriptMessagesRaw, type TranscriptMessage } from "./transcripts";

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

/** How many episodes match the filters. */
export function countEpisodes({ filters = {} }: { filters?: EpisodeFilters } = {}): number {
  const { sql, params } = buildEpisodeWhere(filters);
  return withRaw((db) => (db.prepare(`SELECT COUNT(*) AS n FROM "Episode" e ${sql}`).get(params) as { n: number }).n);
}

/**
 * Every episode matching the filters with its turns and its conversation with the model, in a
 * stable order (dataset, task index, id), read in batches so an export of any size holds one
 * batch in memory at a time.
 */
export function* iterateEpisodesWithTurns({ filters = {}, batchSize = 500 }: { filters?: EpisodeFilters; batchSize?: number } = {}): Generator<
  Episode & { turns: Turn[]; messages: TranscriptMessage[] }
> {
  const { sql, params } = buildEpisodeWhere(filters);
  let offset = 0;
  for (;;) {
    const batch = withRaw((db) => {
      const eps = db
        .prepare(`SELECT e.* FROM "Episode" e ${sql} ORDER BY e."environment", e."dataset", e."taskIndex", e."taskId", e."startedAt", e."id" LIMIT @limit OFFSET @offset`)
        .all({ ...params, limit: batchSize, offset }) as Array<Record<string, unknown>>;
      if (!eps.length) return [];
      const ids = eps.map((e) => e.id as string);
      const turns = db
        .prepare(`SELECT * FROM "Turn" WHERE "episodeId" IN (SELECT value FROM json_each(?)) ORDER BY "episodeId", "index"`)
        .all(JSON.stringify(ids)) as Array<Record<string, unknown>>;
      const byEp = new Map<string, Turn[]>();
      for (const t of turns) {
        const list = byEp.get(t.episodeId as string) ?? [];
        list.push(turnFromRow(t));
        byEp.set(t.episodeId as string, list);
      }
      const messages = listTranscriptMessagesRaw(db, ids);
      return eps.map((e) => ({ ...episodeFromRow(e), turns: byEp.get(e.id as string) ?? [], messages: messages.get(e.id as string) ?? [] }));
    });
    if (!batch.length) return;
    yield* batch;
    offset += batch.length;
    if (batch.length < batchSize) return;
  }
}
