-- The list's triage view: one environment, solved or not, by reward. Success is reward 1.0, so
-- walking the reward index for unsolved episodes first passes every solved one; this index gives
-- that page (and its count) directly.
CREATE INDEX "Episode_environment_success_reward_id_idx" ON "Episode"("environment", "success", "reward", "id");
