-- Python episodes imported from InterCode's logs are filed under their own task (issue 22).
-- InterCode's Python logs give task_id as the 0-based position in the MBPP task file, and the
-- importer used to store that position as MBPP's task_id. MBPP's task_id is its position + 1 in
-- ic_mbpp.json (all 974 tasks), so an imported mbpp episode whose task id still equals its logged
-- position (taskIndex) is moved to task taskIndex + 1. An episode imported by today's importer
-- (lib/trajectories/task-links.ts) has taskId = taskIndex + 1 already and is left alone, so a
-- second run changes nothing.
UPDATE "Episode"
SET "taskId" = CAST("taskIndex" + 1 AS TEXT)
WHERE "environment" = 'python' AND "dataset" = 'mbpp' AND "mode" = 'import'
  AND "taskIndex" IS NOT NULL AND "taskId" = CAST("taskIndex" AS TEXT);
