-- The store on PostgreSQL (IC_DB=postgresql://...): the same tables, columns, indexes and foreign
-- keys as prisma/migrations produces on SQLite, as one first migration (lib/db/schema-match.test.ts
-- checks both against schema.prisma). Prisma's types for PostgreSQL: DateTime is TIMESTAMP(3) (UTC),
-- Float is DOUBLE PRECISION, an autoincrement Int is SERIAL.
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "solved" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "owner" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL
);

CREATE TABLE "Study" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

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
    "reward" DOUBLE PRECISION,
    "breakdown" TEXT,
    "success" BOOLEAN NOT NULL DEFAULT false,
    "solvedAtTurn" INTEGER,
    "goldObservation" TEXT,
    "agentObservation" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firstActionAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
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
    "flags" TEXT NOT NULL DEFAULT '',
    "turnCount" INTEGER NOT NULL DEFAULT 0,
    "turnsTaken" INTEGER,
    "invalidCount" INTEGER NOT NULL DEFAULT 0,
    "checkedCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "searchKey" INTEGER,
    CONSTRAINT "Episode_parentEpisodeId_fkey" FOREIGN KEY ("parentEpisodeId") REFERENCES "Episode" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Episode_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Episode_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

CREATE TABLE "Turn" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "episodeId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "observation" TEXT NOT NULL,
    "ok" BOOLEAN,
    "reward" DOUBLE PRECISION,
    "rawReply" TEXT,
    "thought" TEXT,
    "tokensIn" INTEGER,
    "tokensOut" INTEGER,
    "durationMs" INTEGER,
    "latencyMs" INTEGER,
    "costUsd" DOUBLE PRECISION,
    "source" TEXT,
    "timedOut" BOOLEAN NOT NULL DEFAULT false,
    "aborted" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Turn_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "TranscriptMessage" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "episodeId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "turnIndex" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "droppedTurns" INTEGER,
    CONSTRAINT "TranscriptMessage_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "Annotation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "episodeId" TEXT NOT NULL,
    "turnIndex" INTEGER,
    "kind" TEXT NOT NULL,
    "tag" TEXT,
    "text" TEXT,
    "author" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'accepted',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "Annotation_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "TurnReplay" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "episodeId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "reward" DOUBLE PRECISION,
    "agrees" BOOLEAN NOT NULL,
    "columns" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TurnReplay_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "Episode" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "GoldCache" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "environment" TEXT NOT NULL,
    "dataset" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "observation" TEXT NOT NULL,
    "details" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "ImportedFile" (
    "id" SERIAL NOT NULL PRIMARY KEY,
    "contentHash" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "episodes" INTEGER NOT NULL,
    "rejected" INTEGER NOT NULL,
    "importedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE UNIQUE INDEX "Episode_sourceKey_key" ON "Episode"("sourceKey");
CREATE UNIQUE INDEX "Episode_searchKey_key" ON "Episode"("searchKey");
CREATE INDEX "Episode_stats_idx" ON "Episode"("environment", "dataset", "playerKind", "model", "policy", "solvedAtTurn", "status", "success", "reward", "turnCount", "turnsTaken", "checkedCount", "invalidCount", "turnLimit", "searchKey");
-- The list sorts NULL rewards last both ways, as SQLite does descending: with NULLS FIRST in the
-- index, a backward scan gives "reward DESC NULLS LAST" (the common order) without a sort.
CREATE INDEX "Episode_environment_success_reward_id_idx" ON "Episode"("environment", "success", "reward" NULLS FIRST, "id");
CREATE INDEX "Episode_dataset_idx" ON "Episode"("dataset");
CREATE INDEX "Episode_taskId_idx" ON "Episode"("taskId");
CREATE INDEX "Episode_model_idx" ON "Episode"("model");
CREATE INDEX "Episode_policy_idx" ON "Episode"("policy");
CREATE INDEX "Episode_annotator_idx" ON "Episode"("annotator");
CREATE INDEX "Episode_playerKind_idx" ON "Episode"("playerKind");
CREATE INDEX "Episode_status_idx" ON "Episode"("status");
CREATE INDEX "Episode_reward_id_idx" ON "Episode"("reward" NULLS FIRST, "id");
CREATE INDEX "Episode_hardness_idx" ON "Episode"("hardness");
CREATE INDEX "Episode_startedAt_id_idx" ON "Episode"("startedAt", "id");
CREATE INDEX "Episode_turnCount_id_idx" ON "Episode"("turnCount", "id");
CREATE INDEX "Episode_runId_idx" ON "Episode"("runId");
CREATE INDEX "Episode_studyId_idx" ON "Episode"("studyId");
CREATE INDEX "Episode_parentEpisodeId_idx" ON "Episode"("parentEpisodeId");
CREATE INDEX "Episode_tags_idx" ON "Episode"("tags");
CREATE INDEX "Episode_flags_idx" ON "Episode"("flags");
CREATE UNIQUE INDEX "Turn_episodeId_index_key" ON "Turn"("episodeId", "index");
CREATE UNIQUE INDEX "TranscriptMessage_episodeId_seq_key" ON "TranscriptMessage"("episodeId", "seq");
CREATE UNIQUE INDEX "Run_name_key" ON "Run"("name");
CREATE INDEX "Run_status_idx" ON "Run"("status");
CREATE UNIQUE INDEX "Study_name_key" ON "Study"("name");
CREATE INDEX "Annotation_episodeId_idx" ON "Annotation"("episodeId");
CREATE INDEX "Annotation_tag_status_idx" ON "Annotation"("tag", "status");
CREATE UNIQUE INDEX "TurnReplay_episodeId_index_key" ON "TurnReplay"("episodeId", "index");
CREATE UNIQUE INDEX "GoldCache_environment_dataset_taskId_key" ON "GoldCache"("environment", "dataset", "taskId");
CREATE UNIQUE INDEX "ImportedFile_contentHash_key" ON "ImportedFile"("contentHash");

-- Full-text search (not modelled in schema.prisma), the PostgreSQL counterpart of SQLite's FTS5
-- table "EpisodeText": one document per episode (its query, every turn's action and observation)
-- keyed by Episode."searchKey", as a tsvector with a GIN index. "ic_search_doc" tokenizes as FTS5's
-- unicode61 does (runs of letters and digits, lower-cased, no stemming), so a search finds the same
-- episodes on both engines; positions are stripped (FTS5 keeps none either: detail=column).
CREATE SEQUENCE "Episode_searchKey_seq";
CREATE TABLE "EpisodeText" (
    "searchKey" INTEGER NOT NULL PRIMARY KEY,
    "doc" TSVECTOR NOT NULL
);
CREATE INDEX "EpisodeText_doc_idx" ON "EpisodeText" USING GIN ("doc");

CREATE FUNCTION ic_search_doc(body TEXT) RETURNS TSVECTOR LANGUAGE SQL IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
    SELECT strip(to_tsvector('simple', regexp_replace(lower(left(COALESCE(body, ''), 4000000)), '[^[:alnum:]]+', ' ', 'g')))
$$;

-- The text of one episode's document.
CREATE FUNCTION ic_episode_text(ep TEXT) RETURNS TEXT LANGUAGE SQL STABLE SET search_path FROM CURRENT AS $$
    SELECT e."query" || ' ' || COALESCE((SELECT string_agg(t."action" || ' ' || t."observation", ' ' ORDER BY t."index") FROM "Turn" t WHERE t."episodeId" = e."id"), '')
    FROM "Episode" e WHERE e."id" = ep
$$;

CREATE FUNCTION ic_reindex_episode(ep TEXT) RETURNS VOID LANGUAGE SQL SET search_path FROM CURRENT AS $$
    INSERT INTO "EpisodeText"("searchKey", "doc")
    SELECT e."searchKey", ic_search_doc(ic_episode_text(e."id")) FROM "Episode" e WHERE e."id" = ep AND e."searchKey" IS NOT NULL
    ON CONFLICT ("searchKey") DO UPDATE SET "doc" = excluded."doc";
$$;

-- Every function runs with the search_path it was created under (the store's schema), whichever
-- connection fires it (Prisma's names its tables with the schema; its search_path may differ).

-- While the bulk importer writes (SET LOCAL ic.fts_deferred = 'on', inside its own transaction)
-- the insert triggers stay quiet: it indexes each new episode once, with all its turns.
CREATE FUNCTION ic_fts_deferred() RETURNS BOOLEAN LANGUAGE SQL STABLE SET search_path FROM CURRENT AS $$
    SELECT COALESCE(current_setting('ic.fts_deferred', true), '') = 'on'
$$;

CREATE FUNCTION ic_episode_search_key() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF NEW."searchKey" IS NULL THEN NEW."searchKey" := nextval('"Episode_searchKey_seq"'); END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER "Episode_search_key" BEFORE INSERT ON "Episode" FOR EACH ROW EXECUTE FUNCTION ic_episode_search_key();

CREATE FUNCTION ic_episode_text_ai() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF NOT ic_fts_deferred() THEN PERFORM ic_reindex_episode(NEW."id"); END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER "Episode_text_ai" AFTER INSERT ON "Episode" FOR EACH ROW EXECUTE FUNCTION ic_episode_text_ai();

CREATE FUNCTION ic_episode_text_au() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM ic_reindex_episode(NEW."id");
    RETURN NULL;
END $$;
CREATE TRIGGER "Episode_text_au" AFTER UPDATE OF "query" ON "Episode" FOR EACH ROW EXECUTE FUNCTION ic_episode_text_au();

CREATE FUNCTION ic_episode_text_ad() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM "EpisodeText" WHERE "searchKey" = OLD."searchKey";
    RETURN NULL;
END $$;
CREATE TRIGGER "Episode_text_ad" AFTER DELETE ON "Episode" FOR EACH ROW EXECUTE FUNCTION ic_episode_text_ad();

CREATE FUNCTION ic_turn_text() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT ic_fts_deferred() THEN PERFORM ic_reindex_episode(NEW."episodeId"); END IF;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM ic_reindex_episode(OLD."episodeId");
    ELSE
        PERFORM ic_reindex_episode(OLD."episodeId");
        IF NEW."episodeId" <> OLD."episodeId" THEN PERFORM ic_reindex_episode(NEW."episodeId"); END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER "Turn_text_ai" AFTER INSERT ON "Turn" FOR EACH ROW EXECUTE FUNCTION ic_turn_text();
CREATE TRIGGER "Turn_text_ad" AFTER DELETE ON "Turn" FOR EACH ROW EXECUTE FUNCTION ic_turn_text();
CREATE TRIGGER "Turn_text_au" AFTER UPDATE OF "action", "observation", "episodeId" ON "Turn" FOR EACH ROW EXECUTE FUNCTION ic_turn_text();
