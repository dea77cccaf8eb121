-- The replay's reward curve and turn count read every turn's reward: from this index they do so
-- without walking the turns' observations (a 100 MB episode's curve read 100 MB before).
CREATE INDEX "Turn_episodeId_index_reward_idx" ON "Turn"("episodeId", "index", "reward");
