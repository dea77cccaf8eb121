-- Bash's score cache (issue 26): gold's output and file changes, kept for golds shown to be
-- deterministic, per backend and image gold ran on ("variant"). The replay's gold output keeps
-- variant "" (its rows are unchanged).
ALTER TABLE "GoldCache" ADD COLUMN "variant" TEXT NOT NULL DEFAULT '';
DROP INDEX "GoldCache_environment_dataset_taskId_key";
CREATE UNIQUE INDEX "GoldCache_environment_dataset_taskId_variant_key" ON "GoldCache"("environment", "dataset", "taskId", "variant");
