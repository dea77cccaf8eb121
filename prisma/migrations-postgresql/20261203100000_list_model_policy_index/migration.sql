-- A run's episodes are filtered by model and policy together (the paper's tables are one row per
-- model and policy). No index held both: at a million episodes PostgreSQL counted such a list's
-- first 10,001 matches with a parallel scan of the table (model=gpt-4 + policy=react: 35-45 ms,
-- against SQLite's 4 ms through the model index). On (model, policy) the count reads the index alone.
CREATE INDEX "Episode_model_policy_idx" ON "Episode"("model", "policy");
