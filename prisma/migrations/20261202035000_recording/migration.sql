-- A playground episode's recording (issue 24): console keystrokes, console output and editor
-- changes with their times, in the chunks the browser batched them into ("seq" in order), each
-- chunk one turn's ("turnIndex"). "events" is a JSON array of [ms after "startedAt", kind, data];
-- "bytes" counts against the episode's cap, and "truncated" marks the chunk at which it was hit.
CREATE TABLE "RecordingChunk" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "episodeId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "turnIndex" INTEGER NOT NULL,
    "startedAt" BIGINT NOT NULL,
    "events" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "cols" INTEGER,
    "rows" INTEGER,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "RecordingChunk_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "RecordingChunk_episodeId_seq_key" ON "RecordingChunk"("episodeId", "seq");
