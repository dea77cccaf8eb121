-- Each word's hits as bitmaps over search keys (not modelled in schema.prisma), kept from
-- "EpisodeText" by triggers. The GIN index hands over a word's hits as row addresses: each hit's
-- "searchKey" then costs a row of "EpisodeText" (about 90 ms for a word in 133,000 documents at a
-- million episodes), so a search tested on every episode of a long walk looked each one's document
-- up instead (1.5-6 µs an episode). Here a word's hits are one row per block of 1,024 search keys,
-- bit (key & 1023) set when the episode's document holds the word: a search's hits over the whole
-- store are some hundreds of rows, joined into one bitmap (ic_search_bits, 2-4 ms at a million
-- episodes) that a walk tests each episode's key against (get_bit, 0.12-0.15 µs), and counted
-- (bit_count) without a row of "EpisodeText". Every word a document holds gets its bit, at a cost
-- to writes: some 20 rows of "EpisodeWord" written per new episode of InterCode-like text.
CREATE TABLE "EpisodeWord" (
    "word" TEXT COLLATE "C" NOT NULL,
    "block" INTEGER NOT NULL,
    "bits" BIT VARYING(1024) NOT NULL,
    PRIMARY KEY ("word", "block")
);

-- Flips the bits of `keys` (search keys of one block) in `bits`.
CREATE FUNCTION ic_word_flip(bits BIT VARYING, keys INTEGER[]) RETURNS BIT VARYING LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE k INTEGER;
BEGIN
    FOREACH k IN ARRAY keys LOOP
        bits := set_bit(bits, k & 1023, 1 - get_bit(bits, k & 1023));
    END LOOP;
    RETURN bits;
END $$;

-- The words whose presence in a document changed, per statement on "EpisodeText": a document's
-- word that it did not hold before, or held and no longer does. Each changes its bit, so the
-- change is a flip (XOR) applied in one upsert, in (word, block) order: two transactions writing
-- episodes of one block lock its words' rows in the same order and wait, never deadlock. While
-- the bulk importer writes (SET LOCAL ic.words_deferred = 'on') new documents are left to it: it
-- adds an import's at once (ic_episode_words_add), each block's rows written once, not once per
-- batch of documents.
CREATE FUNCTION ic_episode_words() RETURNS TRIGGER LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF COALESCE(current_setting('ic.words_deferred', true), '') = 'on' THEN RETURN NULL; END IF;
        INSERT INTO "EpisodeWord" ("word", "block", "bits")
        SELECT c.w, c.k >> 10, ic_word_flip(CAST(repeat('0', 1024) AS BIT VARYING), array_agg(c.k))
        FROM (SELECT n."searchKey" AS k, unnest(tsvector_to_array(n."doc")) AS w FROM new_rows n) c
        GROUP BY c.w, c.k >> 10 ORDER BY c.w, c.k >> 10
        ON CONFLICT ("word", "block") DO UPDATE SET "bits" = "EpisodeWord"."bits" # excluded."bits";
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO "EpisodeWord" ("word", "block", "bits")
        SELECT c.w, c.k >> 10, ic_word_flip(CAST(repeat('0', 1024) AS BIT VARYING), array_agg(c.k))
        FROM (
            (SELECT n."searchKey" AS k, unnest(tsvector_to_array(n."doc")) AS w FROM new_rows n
             EXCEPT ALL SELECT o."searchKey", unnest(tsvector_to_array(o."doc")) FROM old_rows o)
            UNION ALL
            (SELECT o."searchKey", unnest(tsvector_to_array(o."doc")) FROM old_rows o
             EXCEPT ALL SELECT n."searchKey", unnest(tsvector_to_array(n."doc")) FROM new_rows n)
        ) c
        GROUP BY c.w, c.k >> 10 ORDER BY c.w, c.k >> 10
        ON CONFLICT ("word", "block") DO UPDATE SET "bits" = "EpisodeWord"."bits" # excluded."bits";
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO "EpisodeWord" ("word", "block", "bits")
        SELECT c.w, c.k >> 10, ic_word_flip(CAST(repeat('0', 1024) AS BIT VARYING), array_agg(c.k))
        FROM (SELECT o."searchKey" AS k, unnest(tsvector_to_array(o."doc")) AS w FROM old_rows o) c
        GROUP BY c.w, c.k >> 10 ORDER BY c.w, c.k >> 10
        ON CONFLICT ("word", "block") DO UPDATE SET "bits" = "EpisodeWord"."bits" # excluded."bits";
    ELSE
        TRUNCATE "EpisodeWord";
    END IF;
    RETURN NULL;
END $$;

-- The bits of the documents with these search keys, added: the bulk importer's, written while
-- ic.words_deferred was on (and, below, the documents already indexed).
CREATE FUNCTION ic_episode_words_add(keys INTEGER[]) RETURNS VOID LANGUAGE SQL SET search_path FROM CURRENT AS $$
    INSERT INTO "EpisodeWord" ("word", "block", "bits")
    SELECT c.w, c.k >> 10, ic_word_flip(CAST(repeat('0', 1024) AS BIT VARYING), array_agg(c.k))
    FROM (SELECT t."searchKey" AS k, unnest(tsvector_to_array(t."doc")) AS w FROM "EpisodeText" t WHERE t."searchKey" = ANY(keys)) c
    GROUP BY c.w, c.k >> 10 ORDER BY c.w, c.k >> 10
    ON CONFLICT ("word", "block") DO UPDATE SET "bits" = "EpisodeWord"."bits" # excluded."bits";
$$;

CREATE TRIGGER "EpisodeText_words_ai" AFTER INSERT ON "EpisodeText" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ic_episode_words();
CREATE TRIGGER "EpisodeText_words_au" AFTER UPDATE ON "EpisodeText" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ic_episode_words();
CREATE TRIGGER "EpisodeText_words_ad" AFTER DELETE ON "EpisodeText" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ic_episode_words();
CREATE TRIGGER "EpisodeText_words_at" AFTER TRUNCATE ON "EpisodeText" FOR EACH STATEMENT EXECUTE FUNCTION ic_episode_words();

-- The hits of a search (a tsquery of words joined by &, the last maybe a prefix, as the list
-- writes them) as one bitmap over search keys 0 to the store's largest, as bytes: key k is bit
-- (k # 7) of get_bit (a BIT VARYING's bits run from each byte's high bit, get_bit's on BYTEA from
-- its low bit). Per block, the bits of a prefix's words are ORed and the terms' ANDed; the blocks
-- every term has are joined in key order (their bytes, from varbit_send after its 4-byte length),
-- the others are zeros. Null when the store has no episode, or the query is not words joined by &.
-- Each term is a key range of "EpisodeWord", read on its own (OFFSET 0): joined to the terms, the
-- ranges were planned as a scan of the whole table.
CREATE FUNCTION ic_search_bits(q TSQUERY) RETURNS BYTEA LANGUAGE plpgsql STABLE PARALLEL SAFE SET search_path FROM CURRENT AS $$
DECLARE
    term TEXT;
    m TEXT[];
    los TEXT[] := '{}';
    his TEXT[] := '{}';
BEGIN
    FOREACH term IN ARRAY string_to_array(CAST(q AS TEXT), ' & ') LOOP
        m := regexp_match(term, '^''(.*)''(:\*)?$');
        IF m IS NULL THEN RETURN NULL; END IF;
        los := los || m[1];
        -- A word: itself alone (no word holds chr(1)). A prefix: every word that starts with it.
        his := his || (m[1] || CASE WHEN m[2] IS NULL THEN chr(1) ELSE chr(1114111) END);
    END LOOP;
    RETURN (
        WITH term_bits AS (
            SELECT t.i, p."block", bit_or(p."bits") AS bits
            FROM unnest(los, his) WITH ORDINALITY AS t(lo, hi, i),
                LATERAL (SELECT w."block", w."bits" FROM "EpisodeWord" w WHERE w."word" >= t.lo COLLATE "C" AND w."word" < t.hi COLLATE "C" OFFSET 0) p
            GROUP BY t.i, p."block"
        ), hits AS (
            SELECT "block", bit_and(bits) AS bits FROM term_bits GROUP BY "block" HAVING count(*) = cardinality(los)
        )
        SELECT string_agg(COALESCE(substring(varbit_send(h.bits) FROM 5), decode(repeat('00', 128), 'hex')), '' ORDER BY g.b)
        FROM generate_series(0, (SELECT MAX(e."searchKey") FROM "Episode" e) >> 10) AS g(b) LEFT JOIN hits h ON h."block" = g.b
    );
END $$;

-- The documents already indexed.
SELECT ic_episode_words_add(ARRAY(SELECT t."searchKey" FROM "EpisodeText" t));
