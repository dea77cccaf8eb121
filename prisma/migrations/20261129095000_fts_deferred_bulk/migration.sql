-- A switch that lets the bulk importer index a whole file in one statement instead of row by row.
-- A trigger that writes to an FTS5 table makes FTS5 flush its pending terms for every row (a
-- statement savepoint each time), which doubles the cost of an import. While "deferred" is 1 the
-- insert triggers stay quiet and the importer fills both indexes itself before it commits; the
-- switch is set and cleared inside the importer's own transaction, so no other connection ever
-- sees it set (and a crash rolls it back).
CREATE TABLE "_FtsControl" (
    "id" INTEGER NOT NULL PRIMARY KEY CHECK ("id" = 1),
    "deferred" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "_FtsControl" ("id", "deferred") VALUES (1, 0);

DROP TRIGGER "Episode_search_ai";
CREATE TRIGGER "Episode_search_ai" AFTER INSERT ON "Episode"
WHEN (SELECT "deferred" FROM "_FtsControl" WHERE "id" = 1) = 0 BEGIN
    INSERT INTO "EpisodeSearch"("episodeId", "query") VALUES (new."id", new."query");
END;

DROP TRIGGER "Turn_search_ai";
CREATE TRIGGER "Turn_search_ai" AFTER INSERT ON "Turn"
WHEN (SELECT "deferred" FROM "_FtsControl" WHERE "id" = 1) = 0 BEGIN
    INSERT INTO "TurnSearch"(rowid, "action", "observation") VALUES (new."id", new."action", new."observation");
END;
