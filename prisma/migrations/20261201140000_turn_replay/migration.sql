-- The would-be reward of each turn (what a submit would have scored after it) of an episode that
-- did not record it, found by replaying its actions in a fresh sandbox; see TurnReplay in schema.prisma.
CREATE TABLE "TurnReplay" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "episodeId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "reward" REAL,
    "agrees" BOOLEAN NOT NULL,
    "columns" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TurnReplay_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "TurnReplay_episodeId_index_key" ON "TurnReplay"("episodeId", "index");
