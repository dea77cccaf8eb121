-- Every sort the episode list offers walks an index at a million episodes (issue 26): each sort
-- key gets an index on (key, id), as the list breaks ties on id. Without one a page sorted by
-- status, solved, invalid actions, duration, environment, dataset, model, policy or player read
-- and sorted every matching episode (a second or more at a million). The single-column indexes on
-- dataset, taskId, model, policy and status are replaced: the (key, id) index serves their
-- equality filters as well. The player sort (the annotator, else the model) is an expression,
-- indexed as one (lib/db/schema-match.ts lists it: schema.prisma cannot state it).
DROP INDEX "Episode_dataset_idx";
DROP INDEX "Episode_taskId_idx";
DROP INDEX "Episode_model_idx";
DROP INDEX "Episode_policy_idx";
DROP INDEX "Episode_status_idx";
CREATE INDEX "Episode_environment_id_idx" ON "Episode"("environment", "id");
CREATE INDEX "Episode_dataset_id_idx" ON "Episode"("dataset", "id");
CREATE INDEX "Episode_taskId_id_idx" ON "Episode"("taskId", "id");
CREATE INDEX "Episode_model_id_idx" ON "Episode"("model", "id");
CREATE INDEX "Episode_policy_id_idx" ON "Episode"("policy", "id");
CREATE INDEX "Episode_status_id_idx" ON "Episode"("status", "id");
CREATE INDEX "Episode_success_id_idx" ON "Episode"("success", "id");
CREATE INDEX "Episode_invalidCount_id_idx" ON "Episode"("invalidCount", "id");
CREATE INDEX "Episode_durationMs_id_idx" ON "Episode"("durationMs", "id");
CREATE INDEX "Episode_player_id_idx" ON "Episode"(COALESCE("annotator", "model"), "id");
