-- A two-valued column makes a poor index: the planner took it for "env = sql AND success = 0"
-- and then visited half the table. Filters on success now ride on a better index or a scan.
DROP INDEX "Episode_success_idx";
