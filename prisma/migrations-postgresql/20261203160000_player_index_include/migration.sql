-- The player sort walks (COALESCE(annotator, model), id), and a page deep in it reads only ids
-- from that walk. PostgreSQL's index-only read needs every column the query names, and the
-- expression names annotator and model: without them in the index it read the table row of
-- every episode it skipped (player ascending, page 100 at a million episodes: 3.9 ms, 2,100
-- pages; with them, 0.9 ms and 51 pages). SQLite reads the expression from the index as it is.
-- INCLUDE keeps them out of the key, so the order and the engines' shared index columns are as before.
DROP INDEX "Episode_player_id_idx";
CREATE INDEX "Episode_player_id_idx" ON "Episode"((COALESCE("annotator", "model")), "id") INCLUDE ("annotator", "model");
