-- Indexes for the list and the statistics at 100,000 episodes.
-- Sort indexes end in "id": the list breaks ties on id, and without it a sort key with many equal
-- values (imported files share start times; half the rewards are 1.0) made SQLite read and sort
-- every tied row to return one page.
DROP INDEX "Episode_startedAt_idx";
DROP INDEX "Episode_reward_idx";
DROP INDEX "Episode_turnCount_idx";
CREATE INDEX "Episode_startedAt_id_idx" ON "Episode"("startedAt", "id");
CREATE INDEX "Episode_reward_id_idx" ON "Episode"("reward", "id");
CREATE INDEX "Episode_turnCount_id_idx" ON "Episode"("turnCount", "id");
-- Statistics read only these columns, grouped by the default dimensions in this order: a scan of
-- this index needs neither the (wide) table rows nor a sort. Its first two columns replace the
-- (environment, dataset) index, and it also counts list pages filtered by environment.
DROP INDEX "Episode_environment_dataset_idx";
CREATE INDEX "Episode_stats_idx" ON "Episode"("environment", "dataset", "playerKind", "model", "policy", "solvedAtTurn", "status", "success", "reward", "turnCount", "checkedCount", "invalidCount", "turnLimit");
