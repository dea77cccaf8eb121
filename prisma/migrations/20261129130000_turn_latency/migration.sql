-- The model's reply latency for a model turn (retries and back-off included), apart from the
-- action's time in the environment ("durationMs").
ALTER TABLE "Turn" ADD COLUMN "latencyMs" INTEGER;
