-- The words of the full-text index (FTS5's fts5vocab: a view of "EpisodeText"'s terms, nothing
-- stored). A search whose last word is a prefix reads them to become the words it stands for, ORed
-- (lib/db/episode-filters.ts): without a prefix index FTS5 reads every hit of a prefix's words,
-- merged, at each statement that tests it, whatever rowid is asked for ('synt*' at a million
-- episodes: 9 ms each time; page 1 tested it per episode and took 1.1 s).
CREATE VIRTUAL TABLE "EpisodeText_vocab" USING fts5vocab("EpisodeText", 'row');
