import "server-only";
import { buildEpisodeWhere, type EpisodeFilters } from "./episode-filters";
import type { Episode, Turn } from "./generated/client";
import { columnsOf, rowParser } from "./rows";
import { withSql } from "./sql";
import { listTranscriptMessagesByEpisodes, type TranscriptMessage } from "./transcripts";
import { listRecordingsByEpisodes } from "./recordings";
import type { Recording } from "@/lib/recording/events";

const episodeRow = rowParser("Episode", columnsOf("Episode"));
const turnRow = rowParser("Turn", columnsOf("Turn"));
const date = (ms: number | null) => (ms === null ? null : new Date(ms));

/** A stored episode as Prisma hands it out (times as Dates), from its raw row. */
function episodeFromRow(row: unknown): Episode {
  const e = episodeRow.one(row);
  return {
    ...e,
    startedAt: new Date(e.startedAt),
    firstActionAt: date(e.firstActionAt),
    endedAt: date(e.endedAt),
    createdAt: new Date(e.createdAt),
    updatedAt: new Date(e.updatedAt),
  };
}

/** A stored turn as Prisma hands it out, from its raw row. */
function turnFromRow(row: unknown): Turn {
  const t = turnRow.one(row);
  return { ...t, startedAt: date(t.startedAt), createdAt: new Date(t.createdAt) };
}

/**
 * Every episode matching the filters with its turns and its conversation with the model, in a
 * stable order (dataset, task index, id), read in batches so an export of any size holds one
 * batch in memory at a time.
 */
export async function* iterateEpisodesWithTurns({
  filters = {},
  batchSize = 500,
}: {
  filters?: EpisodeFilters;
  batchSize?: number;
} = {}): AsyncGenerator<Episode & { turns: Turn[]; messages: TranscriptMessage[]; recording?: Recording }> {
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
      const recordings = await listRecordingsByEpisodes(q, ids);
      return eps.map((e) => ({
        ...episodeFromRow(e),
        turns: byEp.get(e.id as string) ?? [],
        messages: messages.get(e.id as string) ?? [],
        recording: recordings.get(e.id as string),
      }));
    });
    if (!batch.length) return;
    yield* batch;
    offset += batch.length;
    if (batch.length < batchSize) return;
  }
}
