-- A counter of the statements that write the tables the episode list reads (Episode and its search
-- document), bumped once per statement inside the writing transaction. The list holds marks along
-- deep walks (lib/db/list-held.ts) while this counter is unchanged and no transaction that was
-- running when they were read has ended since; before it, any commit anywhere on the server
-- (another database, a session, a recording) made them stale. A sequence is not transactional:
-- a bump is seen at once, before its transaction commits, which is what the check needs.
CREATE SEQUENCE "ic_list_writes";

CREATE FUNCTION ic_list_write() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM nextval('"ic_list_writes"');
  RETURN NULL;
END $$;

CREATE TRIGGER "Episode_list_writes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Episode" FOR EACH STATEMENT EXECUTE FUNCTION ic_list_write();
CREATE TRIGGER "EpisodeText_list_writes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "EpisodeText" FOR EACH STATEMENT EXECUTE FUNCTION ic_list_write();
