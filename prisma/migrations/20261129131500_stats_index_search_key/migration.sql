-- The statistics index ends in "searchKey" as well, so counting a filtered full-text search
-- ("singer" among sql episodes) reads only this index and tests each key against the hit set,
-- instead of reading one table row per episode (35 ms → 15 ms of CPU at 100,000 episodes).
DROP INDEX "Episode_stats_idx";
CREATE INDEX "Episode_stats_idx" ON "Episode"("environment", "dataset", "playerKind", "model", "policy", "solvedAtTurn", "status", "success", "reward", "turnCount", "checkedCount", "invalidCount", "turnLimit", "searchKey");
