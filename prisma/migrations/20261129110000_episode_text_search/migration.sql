-- One search document per episode instead of one per turn. A search used to find every matching
-- turn and then look each one up to learn its episode (8 s at 100,000 episodes for a common word);
-- now it is one FTS5 lookup whose rowids are episode keys, joined on an INTEGER column.
--
-- "searchKey" is the episode's stable integer key (the implicit rowid of a table with a TEXT
-- primary key may change on VACUUM). The bulk importer assigns it; any other insert gets the next
-- one from a trigger. "EpisodeText" indexes the query and every turn's action and observation
-- (contentless: the text lives in Episode and Turn, FTS5 keeps only the index; contentless_delete
-- lets a document be replaced when a turn is added). Triggers keep it in step with every writer
-- except the bulk importer, which sets "_FtsControl"."deferred" and indexes each file itself.
DROP TRIGGER "Episode_search_ai";
DROP TRIGGER "Episode_search_ad";
DROP TRIGGER "Episode_search_au";
DROP TRIGGER "Turn_search_ai";
DROP TRIGGER "Turn_search_ad";
DROP TRIGGER "Turn_search_au";
DROP TABLE "EpisodeSearch";
DROP TABLE "TurnSearch";

ALTER TABLE "Episode" ADD COLUMN "searchKey" INTEGER;
UPDATE "Episode" SET "searchKey" = rowid;
CREATE UNIQUE INDEX "Episode_searchKey_key" ON "Episode"("searchKey");

CREATE VIRTUAL TABLE "EpisodeText" USING fts5("query", "body", content='', contentless_delete=1, detail=column);
INSERT INTO "EpisodeText"(rowid, "query", "body")
SELECT e."searchKey", e."query", (SELECT group_concat(t."action" || ' ' || t."observation", ' ') FROM "Turn" t WHERE t."episodeId" = e."id")
FROM "Episode" e;

CREATE TRIGGER "Episode_text_ai" AFTER INSERT ON "Episode" WHEN new."searchKey" IS NULL BEGIN
    UPDATE "Episode" SET "searchKey" = (SELECT IFNULL(MAX("searchKey"), 0) + 1 FROM "Episode") WHERE "id" = new."id";
    INSERT INTO "EpisodeText"(rowid, "query", "body") SELECT "searchKey", "query", '' FROM "Episode" WHERE "id" = new."id";
END;
CREATE TRIGGER "Episode_text_ad" AFTER DELETE ON "Episode" BEGIN
    DELETE FROM "EpisodeText" WHERE rowid = old."searchKey";
END;
CREATE TRIGGER "Episode_text_au" AFTER UPDATE OF "query" ON "Episode" BEGIN
    DELETE FROM "EpisodeText" WHERE rowid = new."searchKey";
    INSERT INTO "EpisodeText"(rowid, "query", "body")
    SELECT new."searchKey", new."query", (SELECT group_concat(t."action" || ' ' || t."observation", ' ') FROM "Turn" t WHERE t."episodeId" = new."id")
    WHERE new."searchKey" IS NOT NULL;
END;

-- A turn changes its episode's document: rebuild that one document (a few turns of text).
CREATE TRIGGER "Turn_text_ai" AFTER INSERT ON "Turn"
WHEN (SELECT "deferred" FROM "_FtsControl" WHERE "id" = 1) = 0 BEGIN
    DELETE FROM "EpisodeText" WHERE rowid = (SELECT "searchKey" FROM "Episode" WHERE "id" = new."episodeId");
    INSERT INTO "EpisodeText"(rowid, "query", "body")
    SELECT e."searchKey", e."query", (SELECT group_concat(t."action" || ' ' || t."observation", ' ') FROM "Turn" t WHERE t."episodeId" = e."id")
    FROM "Episode" e WHERE e."id" = new."episodeId" AND e."searchKey" IS NOT NULL;
END;
CREATE TRIGGER "Turn_text_ad" AFTER DELETE ON "Turn" BEGIN
    DELETE FROM "EpisodeText" WHERE rowid = (SELECT "searchKey" FROM "Episode" WHERE "id" = old."episodeId");
    INSERT INTO "EpisodeText"(rowid, "query", "body")
    SELECT e."searchKey", e."query", (SELECT group_concat(t."action" || ' ' || t."observation", ' ') FROM "Turn" t WHERE t."episodeId" = e."id")
    FROM "Episode" e WHERE e."id" = old."episodeId" AND e."searchKey" IS NOT NULL;
END;
CREATE TRIGGER "Turn_text_au" AFTER UPDATE OF "action", "observation", "episodeId" ON "Turn" BEGIN
    DELETE FROM "EpisodeText" WHERE rowid IN (SELECT "searchKey" FROM "Episode" WHERE "id" IN (old."episodeId", new."episodeId"));
    INSERT INTO "EpisodeText"(rowid, "query", "body")
    SELECT e."searchKey", e."query", (SELECT group_concat(t."action" || ' ' || t."observation", ' ') FROM "Turn" t WHERE t."episodeId" = e."id")
    FROM "Episode" e WHERE e."id" IN (old."episodeId", new."episodeId") AND e."searchKey" IS NOT NULL;
END;
