-- Imported logs are stored as logged, oddities included (a reward below 0, a last action
-- `blocked` with no observation, ReAct's forced final submit): "flags" names them, space-separated
-- like "tags", and "turnsTaken" keeps the turn count the log itself gave (InterCode's
-- summary.turns_taken), which the statistics count turns by.
ALTER TABLE "Episode" ADD COLUMN "flags" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Episode" ADD COLUMN "turnsTaken" INTEGER;
CREATE INDEX "Episode_flags_idx" ON "Episode"("flags");
-- The statistics index covers the new turn count too (mean turns reads it).
DROP INDEX "Episode_stats_idx";
CREATE INDEX "Episode_stats_idx" ON "Episode"("environment", "dataset", "playerKind", "model", "policy", "solvedAtTurn", "status", "success", "reward", "turnCount", "turnsTaken", "checkedCount", "invalidCount", "turnLimit", "searchKey");
-- ReAct logs imported before this change: a run that reached its turn limit ends in a `submit`
-- the log appended and did not count; say so, and count the turns as the log did.
UPDATE "Episode" SET "turnsTaken" = "turnLimit", "flags" = 'forced-submit'
WHERE "mode" = 'import' AND "policy" = 'react' AND "turnCount" = "turnLimit" + 1
  AND (SELECT t."action" FROM "Turn" t WHERE t."episodeId" = "Episode"."id" AND t."index" = "Episode"."turnCount" - 1) = 'submit';
