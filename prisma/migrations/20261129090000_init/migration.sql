-- CreateTable
CREATE TABLE "Episode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "environment" TEXT NOT NULL,
    "dataset" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "taskIndex" INTEGER,
    "query" TEXT NOT NULL,
    "gold" TEXT,
    "playerKind" TEXT NOT NULL,
    "annotator" TEXT,
    "model" TEXT,
    "policy" TEXT,
    "turnLimit" INTEGER NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'play',
    "feedback" TEXT NOT NULL DEFAULT 'reward',
    "backend" TEXT,
    "status" TEXT NOT NULL DEFAULT 'running',
    "errorReason" TEXT,
    "reward" REAL,
    "breakdown" TEXT,
    "success" BOOLEAN NOT NULL DEFAULT false,
    "solvedAtTurn" INTEGER,
    "goldObservation" TEXT,
    "agentObservation" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firstActionAt" DATETIME,
    "endedAt" DATETIME,
    "durationMs" INTEGER,
    "sourceFile" TEXT,
    "sourceKey" TEXT,
    "parentEpisodeId" TEXT,
    "branchTurn" INTEGER,
    "runId" TEXT,
    "studyId" TEXT,
    "hardness" TEXT,
    "db" TEXT,
    "tags" TEXT NOT NULL DEFAULT '',
    "turnCount" INTEGER NOT NULL DEFAULT 0,
    "invalidCount" INTEGER NOT NULL DEFAULT 0,
    "checkedCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Episode_parentEpisodeId_fkey" FOREIGN KEY ("parentEpisodeId") REFERENCES "Episode" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Episode_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Episode_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "episodeId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "observation" TEXT NOT NULL,
    "ok" BOOLEAN,
    "reward" REAL,
    "rawReply" TEXT,
    "thought" TEXT,
    "tokensIn" INTEGER,
    "tokensOut" INTEGER,
    "durationMs" INTEGER,
    "costUsd" REAL,
    "source" TEXT,
    "timedOut" BOOLEAN NOT NULL DEFAULT false,
    "aborted" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Turn_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "solved" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "endedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Study" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Annotation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "episodeId" TEXT NOT NULL,
    "turnIndex" INTEGER,
    "kind" TEXT NOT NULL,
    "tag" TEXT,
    "text" TEXT,
    "author" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'accepted',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Annotation_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "GoldCache" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "environment" TEXT NOT NULL,
    "dataset" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "observation" TEXT NOT NULL,
    "details" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ImportedFile" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "contentHash" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "episodes" INTEGER NOT NULL,
    "rejected" INTEGER NOT NULL,
    "importedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "Episode_sourceKey_key" ON "Episode"("sourceKey");
CREATE INDEX "Episode_environment_dataset_idx" ON "Episode"("environment", "dataset");
CREATE INDEX "Episode_dataset_idx" ON "Episode"("dataset");
CREATE INDEX "Episode_taskId_idx" ON "Episode"("taskId");
CREATE INDEX "Episode_model_idx" ON "Episode"("model");
CREATE INDEX "Episode_policy_idx" ON "Episode"("policy");
CREATE INDEX "Episode_annotator_idx" ON "Episode"("annotator");
CREATE INDEX "Episode_playerKind_idx" ON "Episode"("playerKind");
CREATE INDEX "Episode_status_idx" ON "Episode"("status");
CREATE INDEX "Episode_success_idx" ON "Episode"("success");
CREATE INDEX "Episode_reward_idx" ON "Episode"("reward");
CREATE INDEX "Episode_hardness_idx" ON "Episode"("hardness");
CREATE INDEX "Episode_startedAt_idx" ON "Episode"("startedAt");
CREATE INDEX "Episode_turnCount_idx" ON "Episode"("turnCount");
CREATE INDEX "Episode_runId_idx" ON "Episode"("runId");
CREATE INDEX "Episode_studyId_idx" ON "Episode"("studyId");
CREATE INDEX "Episode_parentEpisodeId_idx" ON "Episode"("parentEpisodeId");
CREATE UNIQUE INDEX "Turn_episodeId_index_key" ON "Turn"("episodeId", "index");
CREATE UNIQUE INDEX "Run_name_key" ON "Run"("name");
CREATE INDEX "Run_status_idx" ON "Run"("status");
CREATE UNIQUE INDEX "Study_name_key" ON "Study"("name");
CREATE INDEX "Annotation_episodeId_idx" ON "Annotation"("episodeId");
CREATE INDEX "Annotation_tag_status_idx" ON "Annotation"("tag", "status");
CREATE UNIQUE INDEX "GoldCache_environment_dataset_taskId_key" ON "GoldCache"("environment", "dataset", "taskId");
CREATE UNIQUE INDEX "ImportedFile_contentHash_key" ON "ImportedFile"("contentHash");

-- Full-text search (not modelled in schema.prisma). EpisodeSearch holds a copy of each episode's
-- query keyed by episode id (Episode's implicit rowid may change on VACUUM, so it cannot be an
-- external-content source); TurnSearch indexes each turn's action and observation with the turn's
-- INTEGER primary key as rowid (external content, no copy). Triggers keep both in step with every
-- writer (Prisma or the bulk importer). An episode matches when its query or one of its turns does.
CREATE VIRTUAL TABLE "EpisodeSearch" USING fts5("episodeId" UNINDEXED, "query");
CREATE VIRTUAL TABLE "TurnSearch" USING fts5("action", "observation", content='Turn', content_rowid='id');

CREATE TRIGGER "Episode_search_ai" AFTER INSERT ON "Episode" BEGIN
    INSERT INTO "EpisodeSearch"("episodeId", "query") VALUES (new."id", new."query");
END;
CREATE TRIGGER "Episode_search_ad" AFTER DELETE ON "Episode" BEGIN
    DELETE FROM "EpisodeSearch" WHERE "episodeId" = old."id";
END;
CREATE TRIGGER "Episode_search_au" AFTER UPDATE OF "id", "query" ON "Episode" BEGIN
    DELETE FROM "EpisodeSearch" WHERE "episodeId" = old."id";
    INSERT INTO "EpisodeSearch"("episodeId", "query") VALUES (new."id", new."query");
END;
CREATE TRIGGER "Turn_search_ai" AFTER INSERT ON "Turn" BEGIN
    INSERT INTO "TurnSearch"(rowid, "action", "observation") VALUES (new."id", new."action", new."observation");
END;
CREATE TRIGGER "Turn_search_ad" AFTER DELETE ON "Turn" BEGIN
    INSERT INTO "TurnSearch"("TurnSearch", rowid, "action", "observation") VALUES ('delete', old."id", old."action", old."observation");
END;
CREATE TRIGGER "Turn_search_au" AFTER UPDATE OF "action", "observation" ON "Turn" BEGIN
    INSERT INTO "TurnSearch"("TurnSearch", rowid, "action", "observation") VALUES ('delete', old."id", old."action", old."observation");
    INSERT INTO "TurnSearch"(rowid, "action", "observation") VALUES (new."id", new."action", new."observation");
END;
