-- The conversation with the model, each message stored once: the system prompt, every prompt the
-- policy built and every raw reply, numbered in order ("seq") and marked with the turn that added
-- it ("turnIndex"). What the model was sent for a reply is the messages before it (less the
-- turns "droppedTurns" says were left out to fit the context), so no turn repeats the conversation.
CREATE TABLE "TranscriptMessage" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "episodeId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "turnIndex" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "droppedTurns" INTEGER,
    CONSTRAINT "TranscriptMessage_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "TranscriptMessage_episodeId_seq_key" ON "TranscriptMessage"("episodeId", "seq");
