-- Episode.gold means one thing whichever path wrote it (lib/episodes/gold.ts episodeGold): the
-- task's gold answer as text. Model runs stored a bash task's list of commands as a JSON array
-- (now one command per line); the playground and branch stored a CTF task's write-up before the
-- flag (now the flag alone; the write-up is shown from the task, goldShown).
UPDATE "Episode"
SET "gold" = (SELECT group_concat(j."value", char(10)) FROM json_each("Episode"."gold") AS j)
WHERE "environment" = 'bash' AND json_valid("gold") AND json_type("gold") = 'array'
  AND NOT EXISTS (SELECT 1 FROM json_each("Episode"."gold") AS j WHERE j."type" <> 'text');

UPDATE "Episode"
SET "gold" = substr("gold", instr("gold", char(10) || '# flag: ') + length(char(10) || '# flag: '))
WHERE "environment" = 'ctf' AND instr("gold", char(10) || '# flag: ') > 0;
